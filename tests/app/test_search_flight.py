"""Identical plain searches in flight share one backend call (issue 26): a burst of the same
search asks the backend once, a caller who leaves does not fail the others, and an error
reaches every caller without being remembered."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from sleuth.app.caller import Caller
from sleuth.app.service import Service
from sleuth.errors import SearchError
from sleuth.store.service_sqlite import SqliteServiceStore
from sleuth.types import SearchResult

ACME = Caller("acme", how="key")


class SlowSearch:
    """The part of the application `Service.search` calls: a search that waits to be let go."""

    def __init__(self) -> None:
        self.calls = 0
        self.go = asyncio.Event()
        self.fail = False

    async def search(self, query: str, *, limit: int = 10, **values: Any) -> list[SearchResult]:
        self.calls += 1
        await self.go.wait()
        if self.fail:
            raise SearchError("searxng: HTTP 500", "searxng")
        return [
            SearchResult(f"https://example.org/{i}", f"{query} {i}", "", "fake", i + 1)
            for i in range(limit)
        ]


@pytest.fixture
async def store(tmp_path: Path) -> SqliteServiceStore:
    opened = SqliteServiceStore(tmp_path)
    yield opened  # type: ignore[misc]
    await opened.aclose()


async def test_a_burst_of_one_search_asks_the_backend_once(store: SqliteServiceStore) -> None:
    app = SlowSearch()
    service = Service(app, store)  # type: ignore[arg-type]
    asks = [asyncio.create_task(service.search(ACME, "tide tables", {}, limit=3)) for _ in range(5)]
    await asyncio.sleep(0.05)
    asks[0].cancel()  # the first caller leaves: the backend call goes on for the others
    app.go.set()
    found = await asyncio.gather(*asks[1:])
    assert app.calls == 1
    assert all(len(f.results) == 3 for f in found)
    assert [f.cached for f in found] == [True] * 4  # none of them asked the backend itself
    again = await service.search(ACME, "tide tables", {}, limit=3)
    assert again.cached and app.calls == 1
    fresh = await service.search(ACME, "tide tables", {}, limit=3, no_cache=True)
    assert not fresh.cached and app.calls == 2


async def test_an_error_reaches_every_caller_and_is_not_remembered(
    store: SqliteServiceStore,
) -> None:
    app = SlowSearch()
    app.fail = True
    service = Service(app, store)  # type: ignore[arg-type]
    asks = [asyncio.create_task(service.search(ACME, "tide tables", {}, limit=3)) for _ in range(3)]
    await asyncio.sleep(0.05)
    app.go.set()
    outcomes = await asyncio.gather(*asks, return_exceptions=True)
    assert all(isinstance(o, SearchError) for o in outcomes) and app.calls == 1
    app.fail = False
    found = await service.search(ACME, "tide tables", {}, limit=3)
    assert not found.cached and app.calls == 2
