"""A run listing is reused for up to a second while this process saved nothing (issue 26: under
the 200-connection mix every listing was a database read queued on a thread); a save here shows
in the next listing at once."""

from __future__ import annotations

import asyncio
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
