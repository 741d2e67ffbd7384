"""`sleuth batch` through the real entry point on the loopback test web: answers, failures
recorded with their reason without stopping the batch, resuming after a `kill -9`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.batch.pages import (
    BATCH_DEFAULTS,
    add_hanging_question,
    add_questions,
    records,
    write_lines,
)
from tests.cli.helpers import run
from tests.testweb.server import TestWeb


def test_every_line_ends_with_a_result_or_its_failure(
    testweb_env: TestWeb, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [
        *add_questions(testweb_env, 3),
        add_hanging_question(testweb_env),
        "not json",
        {"id": "big", "question": "When was the zorbel0 lighthouse built?", "max_sources": 99},
    ]
    questions = write_lines(tmp_path / "q.jsonl", lines)
    out = tmp_path / "r.jsonl"
    code, stdout, err = run(["batch", str(questions), f"--out={out}", *BATCH_DEFAULTS], capsys)
    assert code == 1, err  # some lines failed; all were tried
    assert stdout == ""
    got = {r["id"]: r for r in records(out)}
    assert len(got) == 6
    for i in range(3):
        assert str(1800 + i) in got[f"q{i}"]["result"]["answer"]
        assert got[f"q{i}"]["line"] == i + 1
    assert got["stuck"]["error"]["kind"] == "deadline_exceeded"
    assert got["big"]["error"] == {
        "kind": "input",
        "message": "max_sources must be between 1 and 50, not 99",
    }
    not_json = next(r for r in got.values() if r["line"] == 5)
    assert not_json["error"]["kind"] == "input" and "not JSON" in not_json["error"]["message"]
    assert "6 lines: 3 answered, 3 failed" in err


def test_a_second_run_skips_what_is_already_answered(
    testweb_env: TestWeb, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = add_questions(testweb_env, 2)
    questions = write_lines(tmp_path / "q.jsonl", lines)
    code, _, err = run(["batch", str(questions), *BATCH_DEFAULTS], capsys)
    assert code == 0, err
    out = tmp_path / "q.results.jsonl"  # the default name
    assert len(records(out)) == 2
    searches = len(testweb_env.searches)
    write_lines(questions, [*lines, {"question": "When was the zorbel1 lighthouse built?"}])
    code, _, err = run(["batch", str(questions), *BATCH_DEFAULTS], capsys)
    assert code == 0, err
    assert "3 lines: 1 answered, 0 failed, 2 already in the results" in err
    assert len(testweb_env.searches) > searches  # only the new line (same question, no id) ran
    assert sorted(r["line"] for r in records(out)) == [1, 2, 3]


def test_a_resume_keeps_failures_says_so_and_retries_them_on_request(
    testweb_env: TestWeb, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A line that failed stays failed on a plain resume — said, and exit 1 — even once the
    user fixed it (its id is the same); `--retry-failed` runs it and replaces its record."""
    lines = add_questions(testweb_env, 2)
    broken = {**lines[1], "max_sources": 99}
    questions = write_lines(tmp_path / "q.jsonl", [lines[0], broken])
    out = tmp_path / "r.jsonl"
    code, _, err = run(["batch", str(questions), f"--out={out}", *BATCH_DEFAULTS], capsys)
    assert code == 1 and "2 lines: 1 answered, 1 failed" in err
    write_lines(questions, lines)  # the user fixes the line
    code, _, err = run(["batch", str(questions), f"--out={out}", *BATCH_DEFAULTS], capsys)
    assert code == 1, err  # the batch still has a failed line
    assert "0 answered, 0 failed, 1 already in the results" in err
    assert "1 failed in an earlier run and skipped (run them again with --retry-failed)" in err
    assert sorted(r["id"] for r in records(out)) == ["q0", "q1"]
    code, _, err = run(
        ["batch", str(questions), f"--out={out}", "--retry-failed", *BATCH_DEFAULTS], capsys
    )
    assert code == 0, err
    assert "1 answered, 0 failed, 1 of them retried after an earlier failure" in err
    got = {r["id"]: r for r in records(out)}
    assert len(records(out)) == 2  # one record per id: the failure was replaced
    assert "1801" in got["q1"]["result"]["answer"]
    code, _, err = run(["batch", str(questions), f"--out={out}", *BATCH_DEFAULTS], capsys)
    assert code == 0 and "2 already in the results" in err and "earlier run" not in err


def test_per_line_depth_and_options_reach_the_run(
    testweb_env: TestWeb, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = add_questions(testweb_env, 2)
    lines[0]["max_sources"] = 1
    lines[1]["depth"] = "deep"
    questions = write_lines(tmp_path / "q.jsonl", lines)
    code, stdout, err = run(["batch", str(questions), "--out=-", *BATCH_DEFAULTS], capsys)
    assert code == 0, err
    got = {r["id"]: r["result"] for r in map(json.loads, stdout.splitlines())}
    assert len(got["q0"]["sources"]) == 1
    assert "critic" in got["q1"]["rounds"][0]  # deep: the critic looked for gaps
    assert got["q1"]["answer"].startswith("## ")  # and a sectioned report by default
    assert "critic" not in got["q0"]["rounds"][0]


def test_a_killed_batch_resumes_and_answers_each_question_once(
    testweb_env: TestWeb, tmp_path: Path
) -> None:
    """`kill -9` mid-batch (slow pages keep questions in flight), then the same command again:
    every question has exactly one record."""
    lines = add_questions(testweb_env, 8, delay_s=1.0)
    questions = write_lines(tmp_path / "q.jsonl", lines)
    out = tmp_path / "r.jsonl"
    command = [sys.executable, "-m", "sleuth.cli", "batch", str(questions), f"--out={out}",
               "--concurrency=2", *BATCH_DEFAULTS]  # fmt: skip
    first = subprocess.Popen(command, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not (out.exists() and len(records(out)) >= 2) and time.monotonic() < deadline:
            time.sleep(0.05)
        os.killpg(first.pid, signal.SIGKILL)
    finally:
        first.wait(timeout=30)
    before = {r["id"] for r in records(out)}
    assert 2 <= len(before) < 8, "the kill should land mid-batch"
    second = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert second.returncode == 0, second.stderr
    assert f"{len(before)} already in the results" in second.stderr
    ids = [r["id"] for r in records(out)]
    assert sorted(ids) == sorted(f"q{i}" for i in range(8))  # each once: none lost, none twice


@pytest.mark.extra("queue")
def test_a_queued_batch_starts_with_a_search_backend_in_the_shell(
    postgres_db: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 27: `batch --queue` refused to start when SLEUTH_SEARCH was set, taking the
    variable for a `--search` flag. The shell's run options travel with the batch; its engine
    settings stay the shell's (the workers use their own); only a typed engine flag is refused."""
    import psycopg

    monkeypatch.setenv("SLEUTH_DATABASE_URL", postgres_db)
    monkeypatch.setenv("SLEUTH_SEARCH", "wikipedia")
    monkeypatch.setenv("SLEUTH_MAX_SOURCES", "3")
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"question": "what is a rainbow?"}\n', encoding="utf-8")
    code, batch_id, err = run(["batch", str(questions), "--queue", "--no-wait"], capsys)
    assert code == 0, err
    with psycopg.connect(postgres_db) as conn:
        row = conn.execute(
            "SELECT options FROM sleuth_batches WHERE id = %s", (batch_id.strip(),)
        ).fetchone()
    assert row is not None and row[0] == {"max_sources": 3}
    code, _, err = run(["batch", str(questions), "--queue", "--search=wikipedia"], capsys)
    assert code == 1
    assert "--search: with --queue the search backend and model are the workers'" in err
