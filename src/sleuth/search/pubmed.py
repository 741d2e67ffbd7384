"""`pubmed`: PubMed through NCBI E-utilities: `esearch` for ids, then `esummary` for titles,
journals and dates. `SLEUTH_PUBMED_ENDPOINT` replaces the `.../entrez/eutils` base."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx2

from ..ports import SearchBackend, SearchQuery
from ..registry import BackendSettings, Registries
from ..types import SearchResult
from .common import Http, endpoint, iso_date, strip_html

NAME = "pubmed"
DEFAULT_ENDPOINT = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"


def _throttled(response: httpx2.Response) -> bool:
    return "rate limit exceeded" in response.text.lower()


@dataclass(slots=True)  # not frozen: SearchBackend.name is a settable protocol member
class PubMed:
    http: Http
    base: str
    name: str = NAME

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        ids = await self._ids(query)
        if not ids:
            return []
        params = {"db": "pubmed", "id": ",".join(ids), "retmode": "json"}
        body = await self.http.get_json(f"{self.base}/esummary.fcgi", params=params)
        with self.http.reading():
            docs = body["result"]
            return [_result(docs[uid], rank) for rank, uid in enumerate(ids, 1) if uid in docs]

    async def _ids(self, query: SearchQuery) -> list[str]:
        params: dict[str, Any] = {
            "db": "pubmed",
            "term": query.text,
            "retmode": "json",
            "retmax": query.limit,
            "sort": "relevance",
        }
        if query.since:
            params |= {"datetype": "pdat", "mindate": f"{query.since:%Y/%m/%d}", "maxdate": "3000"}
        body = await self.http.get_json(f"{self.base}/esearch.fcgi", params=params)
        with self.http.reading():
            found = body["esearchresult"]
            if "ERROR" in found:
                raise self.http.error(f"esearch: {found['ERROR']}")
            return [str(uid) for uid in found["idlist"]]


def _result(doc: dict[str, Any], rank: int) -> SearchResult:
    authors = ", ".join(a["name"] for a in (doc.get("authors") or [])[:3])
    journal = doc.get("fulljournalname") or doc.get("source") or ""
    snippet = " · ".join(part for part in (journal, authors, doc.get("pubdate", "")) if part)
    return SearchResult(
        url=f"https://pubmed.ncbi.nlm.nih.gov/{doc['uid']}/",
        title=strip_html(doc["title"]),
        snippet=snippet,
        backend=NAME,
        rank=rank,
        published=iso_date(doc.get("sortpubdate")),
    )


def factory(settings: BackendSettings, regs: Registries) -> SearchBackend:
    http = Http.from_settings(NAME, settings, _throttled)
    return PubMed(http, endpoint(settings, NAME, DEFAULT_ENDPOINT))


def register(regs: Registries) -> None:
    regs.search.register(NAME, factory, summary="PubMed biomedical literature (E-utilities)")
