"""`firecrawl`: the Firecrawl `/v2/search` API (`SLEUTH_FIRECRAWL_KEY`).

The same request and reader serve `crw` (fastCRW, a Firecrawl-compatible server), which answers
`/v1/search` in Firecrawl's v1 shape: `data` is the list of results itself, where v2 groups them
by source (`data.web`). Firecrawl can also scrape each hit (`scrapeOptions`); Sleuth does not ask
for that: it reads every page itself, through its own network guard, so a result is only a
candidate here, as with every other backend, and a search costs one credit instead of one per
hit. A search language with a region (`de-AT`) goes out as v2's `country` (Firecrawl's default
is `US`); crw takes the language itself as `lang`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..langtag import parse_tag
from ..ports import SearchBackend, SearchQuery
from ..registry import BackendSettings, Registries
from ..types import SearchResult
from .common import Http, days_since, endpoint, iso_date, require, results_of, strip_html

NAME = "firecrawl"
KEY = "SLEUTH_FIRECRAWL_KEY"
DEFAULT_ENDPOINT = "https://api.firecrawl.dev/v2/search"
MAX_LIMIT = 20  # Firecrawl allows more, but Sleuth never reads more than a page of candidates

# The search language as request fields: v2's `country`, crw's `lang`.
Localize = Callable[[str], dict[str, str]]


def country_of(language: str) -> dict[str, str]:
    country = parse_tag(language).country
    return {"country": country} if country else {}


@dataclass(slots=True)  # not frozen: SearchBackend.name is a settable protocol member
class Firecrawl:
    http: Http
    url: str
    key: str | None
    name: str = NAME
    localize: Localize = country_of

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        body: dict[str, Any] = {"query": query.text, "limit": min(query.limit, MAX_LIMIT)}
        tbs = time_filter(days_since(query.since)) if query.since else None
        if tbs:
            body["tbs"] = tbs
        if query.language:
            body.update(self.localize(query.language))
        headers = {"Authorization": f"Bearer {self.key}"} if self.key else {}
        data = await self.http.post_json(self.url, body, headers=headers)
        with self.http.reading():
            if data.get("success") is False:
                raise self.http.error(f"refused: {strip_html(str(data.get('error')), 160)}")
            found = data["data"]
            items = found if isinstance(found, list) else found.get("web") or []
            return results_of(items, self._result)[: query.limit]

    def _result(self, item: dict[str, Any], rank: int) -> SearchResult:
        meta = item.get("metadata") or {}
        url = item.get("url") or meta["sourceURL"]
        return SearchResult(
            url=url,
            title=strip_html(item.get("title") or meta.get("title") or url),
            snippet=strip_html(item.get("description") or meta.get("description")),
            backend=self.name,
            rank=rank,
            published=iso_date(item.get("publishedDate") or item.get("date")),
        )


def time_filter(days: int) -> str | None:
    """Google's `tbs` recency bucket (`qdr:d|w|m|y`) that covers `days`; None past a year, where
    the only bucket would cut more than was asked (Sleuth drops stale pages after reading)."""
    if days > 366:
        return None
    return "qdr:d" if days <= 1 else "qdr:w" if days <= 7 else "qdr:m" if days <= 31 else "qdr:y"


def factory(settings: BackendSettings, regs: Registries) -> SearchBackend:
    key = require(settings, KEY, NAME)
    http = Http.from_settings(NAME, settings)
    return Firecrawl(http, endpoint(settings, NAME, DEFAULT_ENDPOINT), key)


def register(regs: Registries) -> None:
    regs.search.register(NAME, factory, summary="Firecrawl search API", needs=KEY)
