"""`openalex`: scholarly works from the OpenAlex `/works` API; `SLEUTH_OPENALEX_MAILTO` joins
the faster "polite pool"."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..ports import SearchBackend, SearchQuery
from ..registry import BackendSettings, Registries
from ..types import SearchResult
from .common import Http, endpoint, iso_date, results_of, strip_html

NAME = "openalex"
DEFAULT_ENDPOINT = "https://api.openalex.org/works"


@dataclass(slots=True)  # not frozen: SearchBackend.name is a settable protocol member
class OpenAlex:
    http: Http
    url: str
    mailto: str = ""
    name: str = NAME

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        params: dict[str, Any] = {"search": query.text, "per_page": min(query.limit, 200)}
        if query.since:
            params["filter"] = f"from_publication_date:{query.since.isoformat()}"
        if self.mailto:
            params["mailto"] = self.mailto
        body = await self.http.get_json(self.url, params=params)
        with self.http.reading():
            return results_of(body["results"], _result)


def _result(work: dict[str, Any], rank: int) -> SearchResult:
    location = work.get("primary_location") or {}
    url = work.get("doi") or location.get("landing_page_url") or work["id"]
    source = (location.get("source") or {}).get("display_name") or ""
    venue = f"{source} {work.get('publication_year') or ''}".strip()
    abstract = _abstract(work.get("abstract_inverted_index"))
    return SearchResult(
        url=url,
        title=strip_html(work.get("title") or work.get("display_name") or url),
        snippet=" · ".join(part for part in (abstract, venue) if part),
        backend=NAME,
        rank=rank,
        published=iso_date(work.get("publication_date")),
    )


def _abstract(inverted: dict[str, list[int]] | None, limit: int = 300) -> str:
    """OpenAlex ships abstracts as {word: [positions]}; put the words back in order."""
    if not inverted:
        return ""
    slots = {pos: word for word, positions in inverted.items() for pos in positions}
    return strip_html(" ".join(slots[i] for i in sorted(slots)), limit)


def factory(settings: BackendSettings, regs: Registries) -> SearchBackend:
    mailto = settings.env.get("SLEUTH_OPENALEX_MAILTO", "").strip()
    return OpenAlex(
        Http.from_settings(NAME, settings), endpoint(settings, NAME, DEFAULT_ENDPOINT), mailto
    )


def register(regs: Registries) -> None:
    regs.search.register(
        NAME, factory, summary="OpenAlex scholarly works (SLEUTH_OPENALEX_MAILTO optional)"
    )
