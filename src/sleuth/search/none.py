"""`none`: no web search at all, for runs that use only `--include` files or the knowledge base."""

from __future__ import annotations

from dataclasses import dataclass

from ..ports import SearchBackend, SearchQuery
from ..registry import BackendSettings, Registries
from ..types import SearchResult


@dataclass(slots=True)  # not frozen: SearchBackend.name is a settable protocol member
class NoSearch:
    name: str = "none"
    private: bool = True  # nothing leaves the machine: queries may carry private words

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        return []


def factory(settings: BackendSettings, regs: Registries) -> SearchBackend:
    return NoSearch()


def register(regs: Registries) -> None:
    regs.search.register(
        "none", factory, summary="no web search; only --include files", offline=True
    )
