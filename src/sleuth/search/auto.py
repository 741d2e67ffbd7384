"""`auto`: DuckDuckGo; Brave as well when `SLEUTH_BRAVE_KEY` is set and DuckDuckGo fails or
finds nothing."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import SearchError
from ..events import SearchDegraded
from ..ports import SearchBackend, SearchQuery
from ..registry import BackendSettings, Registries
from ..types import SearchResult
from .spec import build_search

NAME = "auto"


@dataclass(slots=True)  # not frozen: SearchBackend.name is a settable protocol member
class Auto:
    primary: SearchBackend
    backup: SearchBackend | None = None
    name: str = NAME

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        try:
            results = await self.primary.search(query)
        except SearchError as exc:
            if self.backup is None:
                raise
            query.report(SearchDegraded(self.primary.name, str(exc)))
            return await _fallback(self.backup, query, exc)
        if results or self.backup is None:
            return results
        return await _fallback(self.backup, query, None)


async def _fallback(
    backup: SearchBackend, query: SearchQuery, first: SearchError | None
) -> list[SearchResult]:
    try:
        return await backup.search(query)
    except SearchError as exc:
        if first is not None:
            raise SearchError(f"every search backend failed: {first}; {exc}", NAME) from exc
        # The primary's empty answer stands; the backup's failure is only worth a mention.
        query.report(SearchDegraded(backup.name, str(exc)))
        return []


def factory(settings: BackendSettings, regs: Registries) -> SearchBackend:
    primary = build_search("duckduckgo", settings, regs)
    has_key = bool(settings.env.get("SLEUTH_BRAVE_KEY", "").strip())
    backup = build_search("brave", settings, regs) if has_key else None
    return Auto(primary, backup)


def register(regs: Registries) -> None:
    regs.search.register(
        NAME, factory, summary="DuckDuckGo, then Brave if SLEUTH_BRAVE_KEY is set and DDG fails"
    )
