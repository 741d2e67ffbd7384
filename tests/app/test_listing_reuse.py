"""A run listing is answered from memory (issue 26: under the 200-connection mix every listing
was a database read queued on a thread, and every run saved sent it back there): a run saved
here joins it at once, without a read; another write here (a tag, a removal) sends it back to
the database; past a second it is read again behind the answer, so another process's runs show;
past ten seconds it is not given at all."""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from sleuth.app.saved import SavedRuns
from sleuth.store.sessions import SessionStore
from tests.store.factories import make_record


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


async def test_a_listing_older_than_a_second_is_read_again_behind_its_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sleuth.app.saved as module

    monkeypatch.setattr(module, "LISTING_REUSE_S", 0.05)
    store = Counting(tmp_path / "sessions.db")
    saved = SavedRuns(lambda: store)
    assert await saved.summaries(org="acme", limit=20) == ()
    other = SessionStore(store.path)  # another process (a CLI, a replica) saves a run
    record = make_record(org="acme")
    other.save(record)
    assert await saved.summaries(org="acme", limit=20) == ()  # within the second: from memory
    await asyncio.sleep(0.1)
    assert await saved.summaries(org="acme", limit=20) == ()  # answered, and read behind it
    await asyncio.sleep(0.1)
    assert [s.id for s in await saved.summaries(org="acme", limit=20)] == [record.id]
    assert store.reads == 2


async def test_a_listing_too_old_is_not_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sleuth.app.saved as module

    monkeypatch.setattr(module, "LISTING_REUSE_S", 0.01)
    monkeypatch.setattr(module, "LISTING_STALE_S", 0.05)
    store = Held(tmp_path / "sessions.db")
    store.go.set()
    saved = SavedRuns(lambda: store)
    await saved.summaries(org="acme", limit=20)
    await asyncio.sleep(0.1)
    store.fail = True  # the database is gone: the caller hears so, not an old listing
    with pytest.raises(OSError, match="disk gone"):
        await saved.summaries(org="acme", limit=20)


async def test_runs_saved_here_join_the_listing_without_a_read(tmp_path: Path) -> None:
    store = Counting(tmp_path / "sessions.db")
    saved = SavedRuns(lambda: store)
    when = datetime(2026, 5, 7, 12, 0, tzinfo=UTC)
    store.save(make_record(when, org="acme"))
    assert len(await saved.summaries(org="acme", limit=2)) == 1
    for minutes, org in ((3, "acme"), (2, "globex"), (1, "acme"), (-1, "acme")):
        store.save(make_record(when + timedelta(minutes=minutes), org=org))
    listed = await saved.summaries(org="acme", limit=2)
    assert listed == SessionStore(store.path).list(org="acme", limit=2)  # newest two, acme's
    assert await saved.summaries() == SessionStore(store.path).list()
    assert store.reads == 2  # the first of each listing only


async def test_a_tag_or_a_removal_sends_the_listing_back_to_the_database(tmp_path: Path) -> None:
    store = Counting(tmp_path / "sessions.db")
    saved = SavedRuns(lambda: store)
    first, second = make_record(org="acme"), make_record(org="acme")
    store.save(first)
    store.save(second)
    await saved.summaries(org="acme")
    store.tag(first.id, "audit")
    assert {s.id: s.tags for s in await saved.summaries(org="acme")}[first.id] == ("audit",)
    store.rm([second.id])
    assert [s.id for s in await saved.summaries(org="acme")] == [first.id]
    assert store.reads == 3


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
