"""`semanticscholar` (`s2`): the Semantic Scholar Graph API paper search; `SLEUTH_S2_KEY`
optional (keyless calls share a small public rate limit)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..ports import SearchBackend, SearchQuery
from ..registry import BackendSettings, Registries
from ..types import SearchResult
from .common import Http, endpoint, iso_date, results_of, strip_html

NAME = "semanticscholar"
DEFAULT_ENDPOINT = "https://api.semanticscholar.org/graph/v1/paper/search"
FIELDS = "title,url,abstract,year,publicationDate,venue,externalIds"


@dataclass(slots=True)  # not frozen: SearchBackend.name is a settable protocol member
class SemanticScholar:
    http: Http
    url: str
    key: str = ""
    name: str = NAME

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        params: dict[str, Any] = {
            "query": query.text,
            "limit": min(query.limit, 100),
            "fields": FIELDS,
        }
        if query.since:
            params["publicationDateOrYear"] = f"{query.since.isoformat()}:"
        headers = {"x-api-key": self.key} if self.key else {}
        body = await self.http.get_json(self.url, params=params, headers=headers)
        with self.http.reading():
            # A zero-hit answer is {"total": 0, "offset": 0} with no "data" at all.
            papers = body["data"] if body.get("total", 1) else body.get("data", [])
            return results_of(papers, _result)


def _result(paper: dict[str, Any], rank: int) -> SearchResult:
    doi = (paper.get("externalIds") or {}).get("DOI")
    url = paper.get("url") or (f"https://doi.org/{doi}" if doi else "")
    if not url:
        url = f"https://www.semanticscholar.org/paper/{paper['paperId']}"
    venue = f"{paper.get('venue') or ''} {paper.get('year') or ''}".strip()
    abstract = strip_html(paper.get("abstract"), 300)
    return SearchResult(
        url=url,
        title=strip_html(paper["title"]),
        snippet=" · ".join(part for part in (abstract, venue) if part),
        backend=NAME,
        rank=rank,
        published=iso_date(paper.get("publicationDate")),
    )


def factory(settings: BackendSettings, regs: Registries) -> SearchBackend:
    key = settings.env.get("SLEUTH_S2_KEY", "").strip()
    return SemanticScholar(
        Http.from_settings(NAME, settings), endpoint(settings, NAME, DEFAULT_ENDPOINT), key
    )


def register(regs: Registries) -> None:
    regs.search.register(
        NAME, factory, summary="Semantic Scholar papers (SLEUTH_S2_KEY optional)", aliases=("s2",)
    )
