"""`tavily`: the Tavily `/search` API (`SLEUTH_TAVILY_KEY`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx2

from ..ports import SearchBackend, SearchQuery
from ..registry import BackendSettings, Registries
from ..types import SearchResult
from .common import Http, endpoint, iso_date, require, results_of, strip_html

NAME = "tavily"
KEY = "SLEUTH_TAVILY_KEY"
DEFAULT_ENDPOINT = "https://api.tavily.com/search"


def _throttled(response: httpx2.Response) -> bool:
    # 432/433: the key's plan or pay-as-you-go limit is used up; no use asking again this run.
    return response.status_code in (432, 433)


@dataclass(slots=True)  # not frozen: SearchBackend.name is a settable protocol member
class Tavily:
    http: Http
    url: str
    key: str
    name: str = NAME

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        body: dict[str, Any] = {
            "query": query.text,
            "max_results": min(query.limit, 20),
            "search_depth": "basic",
            "topic": "general",
        }
        if query.since:
            body["start_date"] = query.since.isoformat()
        headers = {"Authorization": f"Bearer {self.key}"}
        data = await self.http.post_json(self.url, body, headers=headers)
        with self.http.reading():
            return results_of(data["results"], _result)


def _result(item: dict[str, Any], rank: int) -> SearchResult:
    return SearchResult(
        url=item["url"],
        title=strip_html(item.get("title") or item["url"]),
        snippet=strip_html(item.get("content")),
        backend=NAME,
        rank=rank,
        published=iso_date(item.get("published_date")),
    )


def factory(settings: BackendSettings, regs: Registries) -> SearchBackend:
    key = require(settings, KEY, NAME)
    http = Http.from_settings(NAME, settings, _throttled)
    return Tavily(http, endpoint(settings, NAME, DEFAULT_ENDPOINT), key)


def register(regs: Registries) -> None:
    regs.search.register(NAME, factory, summary="Tavily search API", needs=KEY)
