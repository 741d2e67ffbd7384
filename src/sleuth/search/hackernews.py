"""`hackernews`: Hacker News stories through the Algolia HN Search API."""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from typing import Any

from ..ports import SearchBackend, SearchQuery
from ..registry import BackendSettings, Registries
from ..types import SearchResult
from .common import Http, endpoint, iso_date, results_of, strip_html

NAME = "hackernews"
DEFAULT_ENDPOINT = "https://hn.algolia.com/api/v1/search"


@dataclass(slots=True)  # not frozen: SearchBackend.name is a settable protocol member
class HackerNews:
    http: Http
    url: str
    name: str = NAME

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        params: dict[str, Any] = {"query": query.text, "tags": "story", "hitsPerPage": query.limit}
        if query.since:
            params["numericFilters"] = f"created_at_i>{calendar.timegm(query.since.timetuple())}"
        body = await self.http.get_json(self.url, params=params)
        with self.http.reading():
            return results_of(body["hits"], _result)


def _result(hit: dict[str, Any], rank: int) -> SearchResult:
    discussion = f"https://news.ycombinator.com/item?id={hit['objectID']}"
    facts = f"{hit.get('points') or 0} points, {hit.get('num_comments') or 0} comments on HN"
    text = strip_html(hit.get("story_text"), 300)
    return SearchResult(
        url=hit.get("url") or discussion,  # Ask HN / text posts have no external URL
        title=strip_html(hit.get("title")) or discussion,
        snippet=f"{text} ({facts})" if text else facts,
        backend=NAME,
        rank=rank,
        published=iso_date(hit.get("created_at")),
    )


def factory(settings: BackendSettings, regs: Registries) -> SearchBackend:
    return HackerNews(
        Http.from_settings(NAME, settings), endpoint(settings, NAME, DEFAULT_ENDPOINT)
    )


def register(regs: Registries) -> None:
    regs.search.register(NAME, factory, summary="Hacker News stories (Algolia)", aliases=("hn",))
