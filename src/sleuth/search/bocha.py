"""`bocha`: the Bocha AI Web Search API (`SLEUTH_BOCHA_KEY`), whose answer follows Bing's
(`data.webPages.value`). Bocha has no language parameter; `--since` goes out as its
`freshness` date range. Its `dateLastCrawled` is, as its documentation says, the publication
date (the name kept for Bing compatibility)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ..ports import SearchBackend, SearchQuery
from ..registry import BackendSettings, Registries
from ..types import SearchResult
from .common import Http, endpoint, iso_date, require, results_of, strip_html

NAME = "bocha"
KEY = "SLEUTH_BOCHA_KEY"
DEFAULT_ENDPOINT = "https://api.bochaai.com/v1/web-search"
MAX_COUNT = 50  # Bocha's documented range for `count`


@dataclass(slots=True)  # not frozen: SearchBackend.name is a settable protocol member
class Bocha:
    http: Http
    url: str
    key: str
    name: str = NAME

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        body: dict[str, Any] = {
            "query": query.text,
            "count": min(query.limit, MAX_COUNT),
            "summary": True,  # a longer text than `snippet`, used when a page cannot be read
            "freshness": "noLimit",
        }
        if query.since:
            body["freshness"] = f"{query.since.isoformat()}..{datetime.now(UTC).date()}"
        headers = {"Authorization": f"Bearer {self.key}"}
        data = await self.http.post_json(self.url, body, headers=headers)
        with self.http.reading():
            code = data.get("code")
            if code is not None and str(code) != "200":  # an error told in the body
                raise self.http.error(f"refused ({code}): {strip_html(data.get('msg'), 160)}")
            pages = data["data"].get("webPages") or {}
            return results_of(pages.get("value") or [], _result)[: query.limit]


def _result(item: dict[str, Any], rank: int) -> SearchResult:
    return SearchResult(
        url=item["url"],
        title=strip_html(item.get("name") or item["url"]),
        snippet=strip_html(item.get("summary") or item.get("snippet")),
        backend=NAME,
        rank=rank,
        published=iso_date(item.get("datePublished") or item.get("dateLastCrawled")),
    )


def factory(settings: BackendSettings, regs: Registries) -> SearchBackend:
    key = require(settings, KEY, NAME)
    http = Http.from_settings(NAME, settings)
    return Bocha(http, endpoint(settings, NAME, DEFAULT_ENDPOINT), key)


def register(regs: Registries) -> None:
    regs.search.register(NAME, factory, summary="Bocha AI web search API", needs=KEY)
