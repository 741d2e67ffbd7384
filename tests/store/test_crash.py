"""A process killed in the middle of saving leaves every earlier session readable."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

from sleuth.store import SessionStore

ROOT = Path(__file__).resolve().parents[2]

# Saves large sessions forever, printing each id only after its save returned.
WRITER = """
import sys
from datetime import UTC, datetime
from tests.store.factories import make_record, make_result, make_source
from sleuth.store import SessionStore

store = SessionStore(__import__("pathlib").Path(sys.argv[1]))
big = "lorem ipsum dolor sit amet " * 40_000  # ~1 MB of text per source
while True:
    sources = tuple(make_source(n, f"https://example.com/{n}", text=big + str(n)) for n in (1, 2))
    record = make_record(datetime.now(UTC), result=make_result(sources=sources))
    store.save(record)
    print(record.id, flush=True)
"""


def _run_and_kill(db: Path, rng: random.Random) -> list[str]:
    with subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    ) as proc:
        assert proc.stdout is not None
        saved = [proc.stdout.readline().strip() for _ in range(rng.randint(2, 5))]
        time.sleep(rng.uniform(0.0, 0.08))  # land somewhere inside a later save
        proc.send_signal(signal.SIGKILL)
        saved += proc.stdout.read().split()  # ids printed before the kill also count
    assert proc.returncode == -signal.SIGKILL
    return [s for s in saved if s]


def test_sigkill_during_saves_leaves_earlier_sessions_intact(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    rng = random.Random()
    saved: list[str] = []
    for _ in range(3):
        saved += _run_and_kill(db, rng)
        with closing(sqlite3.connect(db)) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        store = SessionStore(db)
        for sid in saved:
            record = store.get(sid)
            assert len(record.result.sources) == 2
            assert record.result.sources[1].text.endswith("amet 2")
        assert set(saved) <= {s.id for s in store.list()}
