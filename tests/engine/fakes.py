"""In-memory adapters at the engine's ports: a search backend and a fetcher over a dict."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sleuth.errors import FetchError, SearchError
from sleuth.ports import SearchQuery
from sleuth.types import Page, SearchResult


@dataclass
class FakeSearch:
    results: dict[str, list[tuple[str, str, str]]]  # query -> [(url, title, snippet)]
    name: str = "fake"
    error: SearchError | None = None
    asked: list[str] = field(default_factory=list)

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        self.asked.append(query.text)
        if self.error is not None:
            raise self.error
        hits = self.results.get(query.text, self.results.get("*", []))
        return [
            SearchResult(u, t, s, self.name, i)
            for i, (u, t, s) in enumerate(hits[: query.limit], 1)
        ]


@dataclass
class FakeFetcher:
    pages: dict[str, tuple[str, str]]  # url -> (title, text)
    delays: dict[str, float] = field(default_factory=dict)
    fetched: list[str] = field(default_factory=list)

    async def fetch(self, url: str) -> Page:
        self.fetched.append(url)
        await asyncio.sleep(self.delays.get(url, 0.0))
        if url not in self.pages:
            raise FetchError("http 404", url)
        title, text = self.pages[url]
        return Page(url, title, text, datetime.now(UTC).isoformat(timespec="seconds"))

    async def aclose(self) -> None:
        return None
