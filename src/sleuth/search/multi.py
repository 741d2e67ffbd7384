"""`multi:a,b,c`: ask several backends at once and merge their answers.

Results are interleaved round-robin (each backend's first hit, then each one's second...) and
deduped by normalized URL, first sighting wins. A failing sub-backend is reported as a
`search.degraded` event and the round goes on; one that rate-limits is benched for the rest of
the run (a multi object lives for one run). The call fails only when every backend fails.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from itertools import zip_longest

from ..errors import RateLimitedError, SearchError, UsageError
from ..events import SearchDegraded
from ..ports import SearchBackend, SearchQuery
from ..registry import BackendSettings, Registries
from ..types import SearchResult
from ..urls import normalize_url
from .spec import build_search

NAME = "multi"


@dataclass(slots=True)  # not frozen: it remembers benched backends for the run
class Multi:
    backends: tuple[SearchBackend, ...]
    name: str = NAME
    benched: dict[str, SearchError] = field(default_factory=dict)

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        active = [b for b in self.backends if b.name not in self.benched]
        answers = await asyncio.gather(*(_ask(b, query) for b in active))
        failures = [self._failed(b, query, a) for b, a in zip(active, answers, strict=True)]
        lists = [a for a in answers if isinstance(a, list)]
        if not lists:
            raise self._all_failed([f for f in failures if f is not None])
        return merge(lists)[: query.limit]  # each backend was asked for `limit`: keep the best

    def _failed(
        self, backend: SearchBackend, query: SearchQuery, answer: list[SearchResult] | SearchError
    ) -> SearchError | None:
        if isinstance(answer, list):
            return None
        if isinstance(answer, RateLimitedError):
            self.benched[backend.name] = answer
        query.report(SearchDegraded(backend.name, str(answer)))
        return answer

    def _all_failed(self, fresh: list[SearchError]) -> SearchError:
        causes = fresh + [e for e in self.benched.values() if e not in fresh]
        message = "every search backend failed: " + "; ".join(str(e) for e in causes)
        kinds = {e.cause for e in causes}
        error = (
            RateLimitedError(message, NAME)
            if causes and all(isinstance(e, RateLimitedError) for e in causes)
            else SearchError(message, NAME, cause=kinds.pop() if len(kinds) == 1 else "error")
        )
        error.parts = tuple(causes)
        return error


async def _ask(backend: SearchBackend, query: SearchQuery) -> list[SearchResult] | SearchError:
    try:
        return await backend.search(query)
    except SearchError as exc:
        return exc


def merge(lists: list[list[SearchResult]]) -> list[SearchResult]:
    """Round-robin interleave, dedupe by normalized URL, re-rank 1..n; hits keep their backend."""
    seen: set[str] = set()
    merged: list[SearchResult] = []
    for row in zip_longest(*lists):
        for hit in row:
            if hit is None or normalize_url(hit.url) in seen:
                continue
            seen.add(normalize_url(hit.url))
            merged.append(replace(hit, rank=len(merged) + 1))
    return merged


def factory(settings: BackendSettings, regs: Registries) -> SearchBackend:
    specs = [part.strip() for part in settings.option.split(",") if part.strip()]
    if not specs:
        raise UsageError("multi needs backends, e.g. --search=multi:duckduckgo,wikipedia")
    if any(part.partition(":")[0].strip().lower() == NAME for part in specs):
        raise UsageError("multi cannot contain multi")
    base = replace(settings, option="")
    return Multi(tuple(build_search(part, base, regs) for part in specs))


def register(regs: Registries) -> None:
    regs.search.register(NAME, factory, summary="fan out: multi:a,b,c (concurrent, merged)")
