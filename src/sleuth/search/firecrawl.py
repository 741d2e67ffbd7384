"""`firecrawl`: the Firecrawl `/v2/search` API (`SLEUTH_FIRECRAWL_KEY`).

The same request and reader serve `crw` (fastCRW, a Firecrawl-compatible server), which answers
`/v1/search` in Firecrawl's v1 shape: `data` is the list of results itself, where v2 groups them
by source (`data.web`). Firecrawl can also scrape each hit (`scrapeOptions`); Sleuth does not ask
for that: it reads every page itself, through its own network guard, so a result is only a
candidate here, as with every other backend, and a search costs one credit instead of one per
hit. With `firecrawl:scrape` (or `crw:scrape`) it does ask, for each hit's main content as
markdown, kept as the result's `scraped` text: Sleuth still fetches the URL itself, and the
service's copy stands in only when that read fails for a reason other than its guard or domain
lists (a site that refuses Sleuth's client, a page of scripts), then is split into passages and
checked like any page. A search language with a region (`de-AT`) goes out as v2's `country`
(Firecrawl's default is `US`); crw takes the language itself as `lang`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError
from ..langtag import parse_tag
from ..ports import SearchBackend, SearchQuery
from ..registry import BackendSettings, Registries
from ..types import SearchResult
from .common import Http, days_since, endpoint, iso_date, require, results_of, strip_html

NAME = "firecrawl"
KEY = "SLEUTH_FIRECRAWL_KEY"
DEFAULT_ENDPOINT = "https://api.firecrawl.dev/v2/search"
MAX_LIMIT = 20  # Firecrawl allows more, but Sleuth never reads more than a page of candidates
MAX_SCRAPED_CHARS = 500_000  # a scraped page's markdown past this is cut

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
    scrape: bool = False

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        body: dict[str, Any] = {"query": query.text, "limit": min(query.limit, MAX_LIMIT)}
        if self.scrape:
            body["scrapeOptions"] = {"formats": ["markdown"], "onlyMainContent": True}
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
            scraped=plain_text(item.get("markdown")) if self.scrape else None,
        )


_IMAGE = re.compile(r"!\[([^\]\n]*)\]\([^)\n]*\)")
_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\n]*\)")
# Line-start marks (heading, quote, list, code fence) and emphasis or code marks; underscores
# stay, since they are also inside words (snake_case).
_MARKS = re.compile(
    r"^[ \t]{0,3}(?:#{1,6}[ \t]+|>[ \t]?|[-*+][ \t]+|```.*$)|[*`]{1,3}", re.MULTILINE
)


def plain_text(markdown: Any) -> str | None:
    """A scraped page's markdown as plain text for passages: links and images as their words,
    heading, quote, list, fence and emphasis marks gone; cut at MAX_SCRAPED_CHARS."""
    if not isinstance(markdown, str) or not markdown.strip():
        return None
    text = _MARKS.sub("", _LINK.sub(r"\1", _IMAGE.sub(r"\1", markdown[:MAX_SCRAPED_CHARS])))
    return "\n".join(line.rstrip() for line in text.splitlines()).strip() or None


def scrape_option(settings: BackendSettings, name: str) -> bool:
    """`NAME:scrape` asks the service to scrape each hit; any other option is a mistake."""
    option = settings.option.strip().lower()
    if option not in ("", "scrape"):
        raise UsageError(f"the {name} search backend takes no option but scrape, not {option!r}")
    return option == "scrape"


def time_filter(days: int) -> str | None:
    """Google's `tbs` recency bucket (`qdr:d|w|m|y`) that covers `days`; None past a year, where
    the only bucket would cut more than was asked (Sleuth drops stale pages after reading)."""
    if days > 366:
        return None
    return "qdr:d" if days <= 1 else "qdr:w" if days <= 7 else "qdr:m" if days <= 31 else "qdr:y"


def factory(settings: BackendSettings, regs: Registries) -> SearchBackend:
    key = require(settings, KEY, NAME)
    http = Http.from_settings(NAME, settings)
    url = endpoint(settings, NAME, DEFAULT_ENDPOINT)
    return Firecrawl(http, url, key, scrape=scrape_option(settings, NAME))


def register(regs: Registries) -> None:
    regs.search.register(NAME, factory, summary="Firecrawl search API", needs=KEY)
