"""`wikipedia`: the MediaWiki search API (`action=query&list=search`) of one Wikipedia language.
Page URLs are built from titles, as MediaWiki does.

Which Wikipedia: the spec's own (`wikipedia:fr`), else the run's search language (`de-AT`
searches de.wikipedia.org), else `SLEUTH_WIKIPEDIA_LANG`, else `en`. An endpoint override
(`SLEUTH_WIKIPEDIA_ENDPOINT`) may name `{lang}`; one that does not is a single wiki's mirror and
keeps the configured language."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx2

from ..errors import RateLimitedError
from ..langtag import parse_tag
from ..ports import SearchBackend, SearchQuery
from ..registry import BackendSettings, Registries
from ..types import SearchResult
from .common import Http, endpoint, results_of, search_with_ladder, strip_html

NAME = "wikipedia"
DEFAULT_ENDPOINT = "https://{lang}.wikipedia.org/w/api.php"


@dataclass(slots=True)  # not frozen: SearchBackend.name is a settable protocol member
class Wikipedia:
    http: Http
    api: str  # may name {lang}
    lang: str
    name: str = NAME
    pinned: bool = False  # the spec named the language (`wikipedia:fr`): a run's does not move it

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        lang = self._lang(query.language)

        async def once(text: str) -> list[SearchResult]:
            return await self._search(text, query.limit, lang)

        return await search_with_ladder(once, query.text)

    def _lang(self, language: str | None) -> str:
        if self.pinned or not language or "{lang}" not in self.api:
            return self.lang
        return parse_tag(language).language

    async def _search(self, text: str, limit: int, lang: str) -> list[SearchResult]:
        params = {
            "action": "query",
            "list": "search",
            "srsearch": text,
            "srlimit": limit,
            "srprop": "snippet",
            "format": "json",
            "formatversion": "2",
            "utf8": "1",
        }
        body = await self.http.get_json(self.api.replace("{lang}", lang), params=params)
        with self.http.reading():
            self._check_error(body.get("error"))
            hits = body["query"]["search"]
            return results_of(hits, lambda hit, rank: _result(hit, rank, lang))

    def _check_error(self, error: dict[str, Any] | None) -> None:
        if not error:
            return
        cause = f"{NAME}: {error.get('code')}: {error.get('info', '')}"
        if error.get("code") in ("ratelimited", "maxlag"):
            raise RateLimitedError(cause, NAME)
        raise self.http.error(f"{error.get('code')}: {error.get('info', '')}")


def _result(hit: dict[str, Any], rank: int, lang: str) -> SearchResult:
    title = hit["title"]
    url = f"https://{lang}.wikipedia.org/wiki/{quote(title.replace(' ', '_'))}"
    return SearchResult(url, title, strip_html(hit.get("snippet")), NAME, rank)


def factory(settings: BackendSettings, regs: Registries) -> SearchBackend:
    lang = settings.option or settings.env.get("SLEUTH_WIKIPEDIA_LANG", "").strip() or "en"
    api = endpoint(settings, NAME, DEFAULT_ENDPOINT)
    http = Http.from_settings(NAME, settings, _maxlag)
    return Wikipedia(http, api, lang, pinned=bool(settings.option))


def _maxlag(response: httpx2.Response) -> bool:
    # MediaWiki signals overload with 503 + Retry-After (maxlag); that is throttling too.
    return response.status_code == 503 and "Retry-After" in response.headers


def register(regs: Registries) -> None:
    regs.search.register(
        NAME,
        factory,
        summary="Wikipedia (MediaWiki search; SLEUTH_WIKIPEDIA_LANG)",
        aliases=("wiki",),
    )
