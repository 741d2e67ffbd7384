"""`brave`: the Brave Web Search API (`SLEUTH_BRAVE_KEY`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ..ports import SearchBackend, SearchQuery
from ..registry import BackendSettings, Registries
from ..types import SearchResult
from .common import Http, endpoint, iso_date, require, results_of, strip_html

NAME = "brave"
KEY = "SLEUTH_BRAVE_KEY"
DEFAULT_ENDPOINT = "https://api.search.brave.com/res/v1/web/search"


@dataclass(slots=True)  # not frozen: SearchBackend.name is a settable protocol member
class Brave:
    http: Http
    url: str
    key: str
    name: str = NAME

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        params: dict[str, Any] = {"q": query.text, "count": min(query.limit, 20)}
        if query.since:
            # Brave's custom range form: YYYY-MM-DDtoYYYY-MM-DD.
            params["freshness"] = f"{query.since}to{datetime.now(UTC).date()}"
        headers = {"X-Subscription-Token": self.key, "Accept": "application/json"}
        body = await self.http.get_json(self.url, params=params, headers=headers)
        with self.http.reading():
            items = (body.get("web") or {}).get("results") or []
            return results_of(items, _result)


def _result(item: dict[str, Any], rank: int) -> SearchResult:
    return SearchResult(
        url=item["url"],
        title=strip_html(item.get("title") or item["url"]),
        snippet=strip_html(item.get("description")),
        backend=NAME,
        rank=rank,
        published=iso_date(item.get("page_age")),
    )


def factory(settings: BackendSettings, regs: Registries) -> SearchBackend:
    key = require(settings, KEY, NAME)
    return Brave(
        Http.from_settings(NAME, settings), endpoint(settings, NAME, DEFAULT_ENDPOINT), key
    )


def register(regs: Registries) -> None:
    regs.search.register(NAME, factory, summary="Brave Web Search API", needs=KEY)
