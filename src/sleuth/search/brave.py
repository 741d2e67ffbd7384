"""`brave`: the Brave Web Search API (`SLEUTH_BRAVE_KEY`).

A search language goes out as Brave's `search_lang` (its own codes: `jp` for Japanese,
`zh-hans`/`zh-hant`, `pt-br`/`pt-pt`, `en-gb`) and a tag's region as `country`, each only when
Brave lists it: Brave refuses a request naming a code it does not know."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ..langtag import LangTag, parse_tag
from ..ports import SearchBackend, SearchQuery
from ..registry import BackendSettings, Registries
from ..types import SearchResult
from .common import Http, endpoint, iso_date, require, results_of, strip_html

NAME = "brave"
KEY = "SLEUTH_BRAVE_KEY"
DEFAULT_ENDPOINT = "https://api.search.brave.com/res/v1/web/search"
# The values Brave's web search documents for `search_lang` and `country`.
SEARCH_LANGS = frozenset(
    """ar eu bn bg ca zh-hans zh-hant hr cs da nl en en-gb et fi fr gl de gu he hi hu is it jp
    kn ko lv lt ms ml mr nb pl pt-br pt-pt pa ro ru sr sk sl es sv ta te th tr uk vi""".split()
)
COUNTRIES = frozenset(
    """AR AU AT BE BR CA CL DK FI FR DE HK IN ID IT JP KR MY MX NZ NO CN PL PT PH RU SA ZA ES
    SE CH TW TR GB US NL""".split()
)
_TRADITIONAL = frozenset({"TW", "HK", "MO"})


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
        if query.language:
            params.update(language_params(parse_tag(query.language)))
        headers = {"X-Subscription-Token": self.key, "Accept": "application/json"}
        body = await self.http.get_json(self.url, params=params, headers=headers)
        with self.http.reading():
            items = (body.get("web") or {}).get("results") or []
            return results_of(items, _result)


def language_params(tag: LangTag) -> dict[str, str]:
    """Brave's `search_lang` and `country` for a language tag, each only when Brave has it."""
    out: dict[str, str] = {}
    code = _search_lang(tag)
    if code in SEARCH_LANGS:
        out["search_lang"] = code
    if tag.country in COUNTRIES:
        out["country"] = tag.country
    return out


def _search_lang(tag: LangTag) -> str:
    lang, region = tag.language, tag.region or ""
    if lang == "ja":
        return "jp"
    if lang == "zh":
        return "zh-hant" if tag.script == "Hant" or region in _TRADITIONAL else "zh-hans"
    if lang == "pt":
        return "pt-br" if region == "BR" else "pt-pt"
    if lang == "en" and region == "GB":
        return "en-gb"
    return "nb" if lang == "no" else lang


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
