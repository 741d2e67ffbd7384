"""The must-show: `kill -9` a `sleuth worker` mid-batch (slow pages on the loopback test web keep
its questions in flight), start another worker: every question ends with exactly one result
or one recorded failure, none twice in the results."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.batch.pages import BATCH_DEFAULTS, add_questions, records, write_lines
from tests.cli.helpers import run
from tests.testweb.server import TestWeb

pytestmark = pytest.mark.extra("queue")
QUESTIONS = 8


@contextmanager
def worker(env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    command = [sys.executable, "-m", "sleuth.cli", "worker", "--concurrency=2",
               "--stalled-after=3", *BATCH_DEFAULTS]  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(command, env=env, stderr=out, start_new_session=True)
    try:
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)


def scalar(url: str, sql: str) -> int:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(sql).fetchone()
    return int(row[0]) if row else 0


def keys(url: str, sql: str) -> set[int]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        return {int(row[0]) for row in conn.execute(sql).fetchall()}


def wait_until(check: object, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_killed_worker_loses_no_question_and_answers_none_twice(
    testweb_env: TestWeb,
    postgres_db: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("SLEUTH_DATABASE_URL", postgres_db)
    questions = write_lines(tmp_path / "q.jsonl", add_questions(testweb_env, QUESTIONS, 1.5))
    code, batch_id, err = run(["batch", str(questions), "--queue", "--no-wait"], capsys)
    assert code == 0, err
    batch_id = batch_id.strip()
    env = dict(os.environ)
    # A question in hand: claimed by a job (an attempt counted) and without its record yet.
    # Counting procrastinate's 'doing' jobs instead raced: the two first questions finish
    # together, so when the first answer lands the jobs 'doing' are ones that just saved
    # their record or have not claimed their next question yet — killed there, nothing is
    # taken up again (seen once in CI: 0 questions retried). Any question in hand raced too:
    # the one seen may be a moment from saving (seen once in CI: 0 held after the kill). So
    # the kill waits for a question claimed since the last look: its pages alone take 1.5 s.
    held = "SELECT count(*) FROM sleuth_batch_items WHERE attempts >= 1 AND state = 'queued'"
    held_now = "SELECT n FROM sleuth_batch_items WHERE attempts >= 1 AND state = 'queued'"
    done = "SELECT count(*) FROM sleuth_batch_items WHERE state <> 'queued'"

    with worker(env, tmp_path / "first.log") as first:
        wait_until(lambda: scalar(postgres_db, done) >= 1, 60, "a first answer")
        seen = keys(postgres_db, held_now)

        def newly_claimed() -> bool:
            now = keys(postgres_db, held_now)
            fresh = now - seen
            seen.update(now)
            return bool(fresh)

        wait_until(newly_claimed, 30, "a question just taken in hand")
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(timeout=30)
    killed_holding = scalar(postgres_db, held)  # its worker is dead: this no longer moves
    finished_before = scalar(postgres_db, done)
    assert killed_holding >= 1 and finished_before < QUESTIONS, "the kill should land mid-batch"

    with worker(env, tmp_path / "second.log") as second:
        out = tmp_path / "results.jsonl"
        code, _, err = run(["batch", "--follow", batch_id, f"--out={out}"], capsys)
        second.send_signal(signal.SIGTERM)  # a graceful stop: nothing in hand by now
        assert second.wait(timeout=30) == 0
    assert code == 0, err
    got = records(out)
    ids = [r["id"] for r in got]
    assert sorted(ids) == sorted(f"q{i}" for i in range(QUESTIONS))  # each once
    for record in got:
        number = int(record["id"][1:])
        assert str(1800 + number) in record["result"]["answer"], record
    retried = scalar(postgres_db, "SELECT count(*) FROM sleuth_batch_items WHERE attempts > 1")
    assert retried >= killed_holding, "each question the killed worker held was taken up again"
    assert "stalled" in (tmp_path / "second.log").read_text(encoding="utf-8")
