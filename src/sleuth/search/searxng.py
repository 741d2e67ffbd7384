"""`searxng`: a SearXNG instance's JSON API (`/search?format=json`), at `SLEUTH_SEARXNG_URL`.

The instance must have the `json` format enabled in its settings.yml.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from ..errors import RateLimitedError
from ..ports import SearchBackend, SearchQuery
from ..registry import BackendSettings, Registries
from ..types import SearchResult
from .common import Http, days_since, iso_date, require, results_of, strip_html

NAME = "searxng"
_THROTTLE_WORDS = ("too many requests", "captcha", "access denied")


@dataclass(slots=True)  # not frozen: SearchBackend.name is a settable protocol member
class SearXNG:
    http: Http
    base_url: str
    name: str = NAME

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        params: dict[str, Any] = {"q": query.text, "format": "json", "limit": query.limit}
        if query.since:
            params["time_range"] = _time_range(query.since)
        if query.language:  # SearXNG's `language`: a locale code (de, en-GB, zh-Hant)
            params["language"] = query.language
        body = await self.http.get_json(f"{self.base_url}/search", params=params)
        with self.http.reading():
            results = results_of(body["results"], _result)
            if not results:
                self._check_unresponsive(body.get("unresponsive_engines") or [])
        return results[: query.limit]

    def _check_unresponsive(self, engines: list[Any]) -> None:
        # An empty page whose engines all said "too many requests" is throttling, not "no hits".
        causes = [" ".join(map(str, e)).lower() for e in engines]
        if causes and all(any(w in c for w in _THROTTLE_WORDS) for c in causes):
            raise RateLimitedError(f"{NAME}: rate limited (engines: {'; '.join(causes)})", NAME)


def _time_range(since: date) -> str:
    days = days_since(since)
    return "day" if days <= 1 else "week" if days <= 7 else "month" if days <= 31 else "year"


def _result(item: dict[str, Any], rank: int) -> SearchResult:
    return SearchResult(
        url=item["url"],
        title=strip_html(item.get("title") or item["url"]),
        snippet=strip_html(item.get("content")),
        backend=NAME,
        rank=rank,
        published=iso_date(item.get("publishedDate")),
    )


def factory(settings: BackendSettings, regs: Registries) -> SearchBackend:
    base = settings.env.get("SLEUTH_SEARXNG_ENDPOINT", "").strip() or require(
        settings, "SLEUTH_SEARXNG_URL", NAME
    )
    return SearXNG(Http.from_settings(NAME, settings), base.rstrip("/"))


def register(regs: Registries) -> None:
    regs.search.register(
        NAME, factory, summary="a SearXNG instance (JSON API)", needs="SLEUTH_SEARXNG_URL"
    )
