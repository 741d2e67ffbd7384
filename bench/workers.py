"""The queue half of the scaling figures (`bench/scaling.py`): `sleuth worker` processes on a
fresh PostgreSQL database answering one queued batch, timed by the database's own clock."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .render import ScaleRow
from .service import SERVE_FLAGS

# -- PostgreSQL ----------------------------------------------------------------------------------


def create_database(admin_url: str, name: str) -> str:
    """A fresh, empty database on the cluster: its URL."""
    import psycopg
    from tests.postgres import with_database

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return with_database(admin_url, name)


def query(url: str, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        return list(conn.execute(sql, params).fetchall())


# -- the queue -----------------------------------------------------------------------------------


def measure_workers(
    admin_url: str,
    web_env: Mapping[str, str],
    texts: Sequence[str],
    n: int,
    concurrency: int,
    *,
    questions: int,
    note: str = "",
) -> ScaleRow:
    """The first `questions` of `texts` answered as one batch by `n` workers, each at
    `concurrency`, on a fresh database, after a warm-up batch from the end of `texts`."""
    from sleuth.app.queue import prepare_schema

    url = create_database(admin_url, f"bench_workers_{n}_{concurrency}")
    asyncio.run(prepare_schema(url))
    with _workers(url, web_env, n, concurrency) as workers:
        _wait_workers(url, workers)
        asyncio.run(_run_batch(url, texts[-n * concurrency :], workers))
        procs = [w.proc for w in workers]
        cpu = _cpu_s(procs)
        batch_id = asyncio.run(_run_batch(url, texts[:questions], workers))
        cpu = _cpu_s(procs) - cpu
    seconds, failed, durations = _batch_figures(url, batch_id)
    return ScaleRow(n, questions, seconds, failed, durations, cpu, note=note)


@dataclass(frozen=True, slots=True)
class Worker:
    proc: subprocess.Popen[bytes]
    log: Path  # its stdout and stderr

    def exited(self) -> str | None:
        """None while it runs; else its exit code and the end of its log."""
        if self.proc.poll() is None:
            return None
        tail = self.log.read_text(errors="replace")[-1500:]
        return f"a sleuth worker exited with {self.proc.returncode}: {tail}"


@contextmanager
def _workers(
    url: str, web_env: Mapping[str, str], n: int, concurrency: int
) -> Iterator[list[Worker]]:
    sleuth = str(Path(sys.executable).with_name("sleuth"))
    command = [sleuth, "worker", f"--concurrency={concurrency}", "--stalled-after=60",
               *SERVE_FLAGS]  # fmt: skip
    started: list[Worker] = []
    try:
        for _ in range(n):
            home = tempfile.mkdtemp(prefix="sleuth-bench-worker-")
            env = {**os.environ, **web_env, "SLEUTH_HOME": home, "SLEUTH_DATABASE_URL": url}
            log = Path(home) / "worker.log"
            with log.open("wb") as out:
                proc = subprocess.Popen(command, env=env, stdout=out, stderr=out)
            started.append(Worker(proc, log))
        yield started
    finally:
        from tests.nginx import stop_all

        stop_all([w.proc for w in started])


def _wait_workers(url: str, workers: Sequence[Worker]) -> None:
    """Until every worker has registered with procrastinate (listening on the queue)."""
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        for worker in workers:
            if exited := worker.exited():
                raise RuntimeError(exited)
        rows = query(url, "SELECT count(*) FROM procrastinate_workers")
        if rows[0][0] >= len(workers):
            return
        time.sleep(0.2)
    raise RuntimeError(f"{len(workers)} sleuth workers did not register within 180 s")


async def _run_batch(
    url: str, texts: Sequence[str], workers: Sequence[Worker], poll_s: float = 0.2
) -> str:
    """Queue one batch of `texts` and wait until every question has its record: its id."""
    from sleuth.app.batch import Item
    from sleuth.app.caller import LOCAL_ORG
    from sleuth.app.queue import enqueue
    from sleuth.store.batches_pg import BatchStore

    items = [Item(f"q{i}", i, text) for i, text in enumerate(texts, 1)]
    batch_id, _ = await enqueue(url, LOCAL_ORG, items, {})
    store = await BatchStore(url).open()
    try:
        deadline = time.monotonic() + 60 + 30 * len(texts)
        while time.monotonic() < deadline:
            progress = await store.progress(LOCAL_ORG, batch_id)
            if progress is not None and progress.finished:
                return batch_id
            for worker in workers:
                if exited := worker.exited():
                    raise RuntimeError(exited)
            await asyncio.sleep(poll_s)
    finally:
        await store.aclose()
    raise RuntimeError(f"batch {batch_id} did not finish")


def _batch_figures(url: str, batch_id: str) -> tuple[float, int, list[float]]:
    """(seconds from the batch's creation to its last record, failed, each run's ms)."""
    (seconds, failed), *_ = query(
        url,
        "SELECT extract(epoch FROM max(i.finished_at) - b.created_at)::float,"
        " count(*) FILTER (WHERE i.state = 'failed') FROM sleuth_batch_items i"
        " JOIN sleuth_batches b ON b.id = i.batch_id WHERE b.id = %s GROUP BY b.created_at",
        (batch_id,),
    )
    runs = query(
        url,
        "SELECT (record->'result'->'usage'->>'duration_ms')::float FROM sleuth_batch_items"
        " WHERE batch_id = %s AND state = 'done'",
        (batch_id,),
    )
    return float(seconds), int(failed), [float(r[0]) for r in runs if r[0] is not None]


def _cpu_s(procs: Sequence[subprocess.Popen[Any]]) -> float:
    """The processes' CPU time so far (user + system), from /proc."""
    total = 0.0
    for proc in procs:
        fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total
