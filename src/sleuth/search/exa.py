"""`exa`: the Exa `/search` API (`SLEUTH_EXA_KEY`), asking for a short text excerpt per hit.

Exa has no language parameter; a search language with a region (`de-AT`) goes out as its
`userLocation` (an ISO 3166-1 alpha-2 country code, which biases results to that country)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..langtag import parse_tag
from ..ports import SearchBackend, SearchQuery
from ..registry import BackendSettings, Registries
from ..types import SearchResult
from .common import Http, endpoint, iso_date, require, results_of, strip_html

NAME = "exa"
KEY = "SLEUTH_EXA_KEY"
DEFAULT_ENDPOINT = "https://api.exa.ai/search"


@dataclass(slots=True)  # not frozen: SearchBackend.name is a settable protocol member
class Exa:
    http: Http
    url: str
    key: str
    name: str = NAME

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        body: dict[str, Any] = {
            "query": query.text,
            "numResults": min(query.limit, 25),
            "type": "auto",
            "contents": {"text": {"maxCharacters": 500}},
        }
        if query.since:
            body["startPublishedDate"] = f"{query.since.isoformat()}T00:00:00.000Z"
        country = parse_tag(query.language).country if query.language else None
        if country:
            body["userLocation"] = country.lower()
        data = await self.http.post_json(self.url, body, headers={"x-api-key": self.key})
        with self.http.reading():
            return results_of(data["results"], _result)


def _result(item: dict[str, Any], rank: int) -> SearchResult:
    highlights = " … ".join(item.get("highlights") or [])
    return SearchResult(
        url=item["url"],
        title=strip_html(item.get("title") or item["url"]),
        snippet=strip_html(item.get("text") or highlights or item.get("summary")),
        backend=NAME,
        rank=rank,
        published=iso_date(item.get("publishedDate")),
    )


def factory(settings: BackendSettings, regs: Registries) -> SearchBackend:
    key = require(settings, KEY, NAME)
    return Exa(Http.from_settings(NAME, settings), endpoint(settings, NAME, DEFAULT_ENDPOINT), key)


def register(regs: Registries) -> None:
    regs.search.register(NAME, factory, summary="Exa neural search API", needs=KEY)
