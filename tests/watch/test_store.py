"""The watch store on both backends: a due watch is claimed by one of many racing runners,
held while it runs, and due again only a period after its run."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from sleuth.app.watch import LEASE_S, new_watch
from sleuth.errors import NotFoundError, UsageError
from sleuth.store.backend import watch_store
from sleuth.store.watches import WatchRun, WatchStore

NOW = 1_790_000_000.0


def store_for(backend: str | None, home: Path) -> WatchStore:
    return watch_store(home, backend or None)


def test_of_many_racing_runners_one_claims_a_due_watch(
    backend: str | None, sleuth_home: Path
) -> None:
    store = store_for(backend, sleuth_home)
    watch = store.add(new_watch("Q?", "1d", now=NOW))
    gate = threading.Barrier(8)
    won: list[object] = []

    def runner() -> None:
        mine = store_for(backend, sleuth_home)  # its own connections, as another process
        gate.wait()
        won.append(mine.claim(watch.id, NOW + 1, LEASE_S))

    threads = [threading.Thread(target=runner) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sum(w is not None for w in won) == 1
    assert store.due(NOW + 2) == []  # held while it runs
    assert store.claim(watch.id, NOW + 2, LEASE_S, force=True) is None
    assert store.due(NOW + LEASE_S + 2) == [watch.id]  # a runner that died lets it go

    store.finish(WatchRun(watch.id, "s1", None, "2026-12-03T00:00:00Z", "first"), NOW + 86400)
    assert store.due(NOW + 3) == [] and store.due(NOW + 86400) == [watch.id]
    again = store.get(watch.id[:4])
    assert (again.runs, again.last_session, again.last_status) == (1, "s1", "first")
    assert store.by_session()["s1"].watch_id == watch.id


def test_ids_are_checked_and_removal_takes_the_runs(backend: str | None, sleuth_home: Path) -> None:
    store = store_for(backend, sleuth_home)
    watch = store.add(new_watch("Q?", "1h", now=NOW))
    store.finish(WatchRun(watch.id, "s1", None, "2026-12-03T00:00:00Z", "first"), NOW)
    with pytest.raises(UsageError, match="not a watch id"):
        store.get("'; DROP TABLE watches; --")
    held = store.add(new_watch("Held?", "1h", now=NOW))
    assert store.claim(held.id, NOW, LEASE_S) is not None
    store.rm(held.id)  # removed while it runs: its run's end records nothing, fails nothing
    store.finish(WatchRun(held.id, "s2", None, "2026-12-03T00:00:00Z", "first"), NOW)
    assert "s2" not in store.by_session()
    assert store.rm(watch.id).question == "Q?"
    with pytest.raises(NotFoundError):
        store.get(watch.id)
    assert store.by_session() == {} and store.all() == []
