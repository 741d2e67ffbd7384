"""A run listing is reused for up to a second while this process saved nothing (issue 26: under
the 200-connection mix every listing was a database read queued on a thread); a save here shows
in the next listing at once."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from sleuth.app.saved import SavedRuns
from sleuth.store.sessions import SessionStore


class Counting(SessionStore):
    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.reads = 0

    def list(self, *args: Any, **kwargs: Any) -> Any:
        self.reads += 1
        return super().list(*args, **kwargs)


async def test_a_listing_is_reused_until_this_process_saves(tmp_path: Path) -> None:
    store = Counting(tmp_path / "sessions.db")
    saved = SavedRuns(lambda: store)
    assert await saved.summaries(org="acme", limit=20) == ()
    assert await saved.summaries(org="acme", limit=20) == ()
    assert store.reads == 1
    await saved.summaries(org="globex", limit=20)  # other filters: another listing
    assert store.reads == 2
    store.changes += 1  # what every committed write of this process does
    await saved.summaries(org="acme", limit=20)
    assert store.reads == 3


async def test_a_listing_older_than_a_second_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sleuth.app.saved as module

    monkeypatch.setattr(module, "LISTING_REUSE_S", 0.05)
    store = Counting(tmp_path / "sessions.db")
    saved = SavedRuns(lambda: store)
    await saved.summaries(org="acme", limit=20)
    await asyncio.sleep(0.1)
    await saved.summaries(org="acme", limit=20)
    assert store.reads == 2


def test_a_committed_write_counts_as_a_change(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions.db")
    before = store.changes
    with store._tx() as conn:
        conn.execute("SELECT 1")
    assert store.changes == before + 1


class Held(Counting):
    """A store whose listing waits until the test lets it go (or fails, when told to)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.go = threading.Event()
        self.fail = False

    def list(self, *args: Any, **kwargs: Any) -> Any:
        self.go.wait(10)
        if self.fail:
            self.reads += 1
            raise OSError("disk gone")
        return super().list(*args, **kwargs)


async def _started(saved: SavedRuns, n: int) -> list[asyncio.Task[Any]]:
    asks = [asyncio.create_task(saved.summaries(org="acme", limit=20)) for _ in range(n)]
    await asyncio.sleep(0.05)  # every ask is waiting on the one read
    return asks


async def test_listings_asked_together_share_one_read(tmp_path: Path) -> None:
    store = Held(tmp_path / "sessions.db")
    saved = SavedRuns(lambda: store)
    asks = await _started(saved, 20)
    asks[0].cancel()  # a caller who leaves spoils no one's read
    store.go.set()
    results = await asyncio.gather(*asks[1:])
    assert results == [()] * 19
    assert store.reads == 1


async def test_a_save_while_a_listing_is_read_starts_a_new_read(tmp_path: Path) -> None:
    store = Held(tmp_path / "sessions.db")
    saved = SavedRuns(lambda: store)
    first = await _started(saved, 1)
    store.changes += 1  # saved after that read began: it may not show the new run
    later = await _started(saved, 1)
    store.go.set()
    await asyncio.gather(*first, *later)
    assert store.reads == 2


async def test_a_failed_listing_reaches_every_caller_and_is_not_kept(tmp_path: Path) -> None:
    store = Held(tmp_path / "sessions.db")
    saved = SavedRuns(lambda: store)
    store.fail = True
    asks = await _started(saved, 3)
    store.go.set()
    outcomes = await asyncio.gather(*asks, return_exceptions=True)
    assert all(isinstance(o, OSError) for o in outcomes)
    store.fail = False
    assert await saved.summaries(org="acme", limit=20) == ()
    assert store.reads == 2
