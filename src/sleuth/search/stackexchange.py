"""`stackexchange`: StackExchange `/2.3/search/advanced` on one site (`stackexchange:superuser`
or `SLEUTH_STACKEXCHANGE_SITE`; default `stackoverflow`)."""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from typing import Any

import httpx2

from ..errors import RateLimitedError, SearchError
from ..ports import SearchBackend, SearchQuery
from ..registry import BackendSettings, Registries
from ..types import SearchResult
from .common import Http, endpoint, iso_date, results_of, search_with_ladder, strip_html

NAME = "stackexchange"
DEFAULT_ENDPOINT = "https://api.stackexchange.com/2.3/search/advanced"


def _throttled(response: httpx2.Response) -> bool:
    # The API answers throttling with HTTP 400 and error_id 502 "throttle_violation".
    return response.status_code == 400 and "throttle_violation" in response.text


@dataclass(slots=True)  # not frozen: SearchBackend.name is a settable protocol member
class StackExchange:
    http: Http
    url: str
    site: str
    name: str = NAME

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        async def once(text: str) -> list[SearchResult]:
            return await self._search(text, query)

        return await search_with_ladder(once, query.text)

    async def _search(self, text: str, query: SearchQuery) -> list[SearchResult]:
        params: dict[str, Any] = {
            "q": text,
            "site": self.site,
            "order": "desc",
            "sort": "relevance",
            "pagesize": min(query.limit, 100),
            "filter": "withbody",
        }
        if query.since:
            params["fromdate"] = calendar.timegm(query.since.timetuple())
        body = await self.http.get_json(self.url, params=params)
        with self.http.reading():
            if body.get("error_id"):
                raise _api_error(body)
            return results_of(body["items"], _result)


def _api_error(body: dict[str, Any]) -> Exception:
    cause = f"{NAME}: {body.get('error_name')}: {body.get('error_message')}"
    if body["error_id"] == 502:  # throttle_violation
        return RateLimitedError(cause, NAME)
    return SearchError(cause, NAME)


def _result(item: dict[str, Any], rank: int) -> SearchResult:
    facts = f"{item.get('score', 0)} votes" + (" · answered" if item.get("is_answered") else "")
    tags = ", ".join(item.get("tags") or [])
    snippet = strip_html(item.get("body"), 300) or f"Tags: {tags}"
    return SearchResult(
        url=item["link"],
        title=strip_html(item["title"]),
        snippet=f"{snippet} ({facts})",
        backend=NAME,
        rank=rank,
        published=iso_date(item.get("creation_date")),
    )


def factory(settings: BackendSettings, regs: Registries) -> SearchBackend:
    site = settings.option or settings.env.get("SLEUTH_STACKEXCHANGE_SITE", "") or "stackoverflow"
    url = endpoint(settings, NAME, DEFAULT_ENDPOINT)
    return StackExchange(Http.from_settings(NAME, settings, _throttled), url, site.strip())


def register(regs: Registries) -> None:
    regs.search.register(
        NAME,
        factory,
        summary="StackExchange Q&A (site via stackexchange:SITE)",
        aliases=("stackoverflow", "so"),
    )
