"""`arxiv`: the arXiv API (Atom feed from `/api/query`), every content word required."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

import httpx2

from ..ports import SearchBackend, SearchQuery
from ..registry import BackendSettings, Registries
from ..text import keywords
from ..types import SearchResult
from .common import Http, endpoint, iso_date, strip_html

NAME = "arxiv"
DEFAULT_ENDPOINT = "https://export.arxiv.org/api/query"
ATOM = "{http://www.w3.org/2005/Atom}"


def _throttled(response: httpx2.Response) -> bool:
    # arXiv sheds load with 503 + Retry-After.
    return response.status_code == 503


@dataclass(slots=True)  # not frozen: SearchBackend.name is a settable protocol member
class Arxiv:
    http: Http
    url: str
    name: str = NAME

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        terms = [f"all:{word}" for word in keywords(query.text)[:6]] or [f"all:{query.text}"]
        if query.since:
            terms.append(f"submittedDate:[{query.since:%Y%m%d}0000 TO 300001010000]")
        params = {
            "search_query": " AND ".join(terms),
            "start": 0,
            "max_results": query.limit,
            "sortBy": "relevance",
        }
        response = await self.http.request("GET", self.url, params=params)
        try:
            feed = ET.fromstring(response.content)
        except ET.ParseError as exc:
            raise self.http.error(f"returned invalid Atom XML ({exc})") from exc
        with self.http.reading():
            return self._results(feed)

    def _results(self, feed: ET.Element) -> list[SearchResult]:
        entries = feed.findall(f"{ATOM}entry")
        if feed.tag != f"{ATOM}feed":
            raise ValueError(f"root element is {feed.tag}, not an Atom feed")
        results = []
        for rank, entry in enumerate(entries, 1):
            link = _text(entry, "id")
            if "/api/errors" in link:  # arXiv reports bad queries as a single error entry
                raise self.http.error(f"API error: {_text(entry, 'summary')}")
            results.append(
                SearchResult(
                    url=link,
                    title=strip_html(_text(entry, "title")),
                    snippet=strip_html(_text(entry, "summary"), 300),
                    backend=NAME,
                    rank=rank,
                    published=iso_date(_text(entry, "published")),
                )
            )
        return results


def _text(entry: ET.Element, tag: str) -> str:
    node = entry.find(f"{ATOM}{tag}")
    if node is None or node.text is None:
        raise KeyError(tag)
    return node.text.strip()


def factory(settings: BackendSettings, regs: Registries) -> SearchBackend:
    http = Http.from_settings(NAME, settings, _throttled)
    return Arxiv(http, endpoint(settings, NAME, DEFAULT_ENDPOINT))


def register(regs: Registries) -> None:
    regs.search.register(NAME, factory, summary="arXiv preprints (Atom API)")
