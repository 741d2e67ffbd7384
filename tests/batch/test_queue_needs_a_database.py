"""`sleuth batch --queue` without PostgreSQL: one clear line saying what to set, nothing queued,
the results file untouched (the queue's own tests need a PostgreSQL cluster; this one does not,
so `make test` runs the command's path too)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import run

pytestmark = pytest.mark.extra("queue")


def test_batch_on_the_queue_without_a_database_says_what_to_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"question": "When was the Eiffel Tower built?"}\n')
    out = tmp_path / "results.jsonl"
    code, stdout, err = run(["batch", str(questions), "--queue", f"--out={out}"], capsys)
    assert code == 1 and stdout == ""
    assert "batches on the queue need PostgreSQL: set SLEUTH_DATABASE_URL" in err
    assert "Traceback" not in err and not out.exists()


def test_following_a_batch_with_a_url_that_is_not_postgresql_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLEUTH_DATABASE_URL", "mysql://db.internal/sleuth")
    code, _, err = run(["batch", "--follow", "b_0123456789abcdef"], capsys)
    assert code == 1 and "SLEUTH_DATABASE_URL must be a postgresql:// URL" in err
