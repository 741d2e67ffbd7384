"""The must-show on PostgreSQL: two `sleuth worker` processes, a due watch whose page changed
since its last run — it is run exactly once (one re-run saved, one webhook call), by
procrastinate's periodic tick and the watch store's claim."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest

from tests.cli.helpers import run
from tests.testweb.server import TestWeb
from tests.watch import pages
from tests.watch.receiver import receiving

pytestmark = pytest.mark.extra("queue")


@contextmanager
def worker(env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    command = [sys.executable, "-m", "sleuth.cli", "worker", "--concurrency=2", *pages.RUN]
    with log.open("wb") as out:
        process = subprocess.Popen(command, env=env, stderr=out, start_new_session=True)
    try:
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


def scalar(url: str, sql: str) -> int:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(sql).fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def wait_until(check: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def test_two_workers_run_a_due_watch_exactly_once(
    testweb_env: TestWeb,
    postgres_db: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("SLEUTH_DATABASE_URL", postgres_db)
    monkeypatch.setenv("SLEUTH_ALLOW_PRIVATE_NETWORK", "1")
    pages.serve(testweb_env, pages.FIRST)
    with receiving() as hook:
        code, out, err = run(
            ["watch", "add", pages.QUESTION, f"--webhook={hook.url}", "--json"], capsys
        )
        assert code == 0, err
        watch_id = json.loads(out)["id"]
        code, out, err = run(["watch", "run", *pages.RUN], capsys)  # the first run, here
        assert code == 0 and " first" in out, err
        pages.serve(testweb_env, pages.CHANGED)
        scalar(postgres_db, f"UPDATE watches SET next_at = 0 WHERE id = '{watch_id}' RETURNING 1")

        runs = f"SELECT runs FROM watches WHERE id = '{watch_id}'"
        pending = (
            "SELECT count(*) FROM procrastinate_jobs WHERE task_name LIKE 'sleuth.watch.%'"
            " AND status IN ('todo', 'doing')"
        )
        env = dict(os.environ)
        with ExitStack() as stack:
            for name in ("one", "two"):
                stack.enter_context(worker(env, tmp_path / f"{name}.log"))
            wait_until(lambda: scalar(postgres_db, runs) >= 2, 120, "the watch's second run")
            wait_until(lambda: scalar(postgres_db, pending) == 0, 60, "no watch job left")
            ticks = scalar(postgres_db, "SELECT count(*) FROM procrastinate_periodic_defers")
        logs = "".join((tmp_path / f"{n}.log").read_text() for n in ("one", "two"))

    assert scalar(postgres_db, runs) == 2, logs
    code, out, _ = run(["watch", "show", watch_id, "--json"], capsys)
    statuses = [r["status"] for r in json.loads(out)["runs"]]
    assert statuses == ["changed", "first"], logs
    assert scalar(postgres_db, "SELECT count(*) FROM sessions") == 2
    assert len(hook.calls) == 1
    assert ticks >= 1  # the periodic tick deferred the run (not the local `watch run`)
