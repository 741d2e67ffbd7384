"""The research engine: `Engine.run(request)` is an async iterator of events ending in `Done`.

Quick mode (DESIGN §2): search → fuse and cap candidates → read in parallel under deadlines →
rank passages and number sources → write → check citations. The engine receives ready adapters
(search backend, fetcher, writer) and never prints, never looks anything up by name.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from .answer import finish_answer
from .candidates import Candidate, cap_per_site, fuse
from .errors import (
    BlockedURLError,
    DeadlineExceeded,
    NoSourcesError,
    SearchError,
    SleuthError,
    UsageError,
)
from .events import (
    Done,
    Event,
    Failed,
    FetchSkipped,
    Notice,
    PassagesKept,
    Planned,
    SearchDegraded,
    Searched,
)
from .evidence import EvidenceLimits, Read, build_sources
from .fetch.domains import DomainPolicy
from .ports import Fetcher, SearchBackend, SearchQuery, Writer
from .read import ReadLimits, ReadOutcome, read_all
from .types import ResearchRequest, Result, SearchResult, Source, Usage
from .write.run import WriteOutcome, write_answer

MAX_QUESTION_CHARS = 2000
T = TypeVar("T")


@dataclass(slots=True)
class RunState:
    """Mutable bookkeeping for one run (the events and result stay immutable)."""

    started: float = field(default_factory=time.monotonic)
    searches: int = 0
    search_ms: int = 0
    read_ms: int = 0
    pages_read: int = 0
    queries: list[str] = field(default_factory=list)
    causes: list[str] = field(default_factory=list)  # why a run may end with no sources

    def elapsed_ms(self) -> int:
        return int((time.monotonic() - self.started) * 1000)


class Engine:
    def __init__(
        self,
        search: SearchBackend,
        fetcher: Fetcher,
        writer: Writer,
        *,
        include: SearchBackend | None = None,
        fallback: SearchBackend | None = None,
        meter: object | None = None,
    ) -> None:
        self.search = search
        self.fetcher = fetcher
        self.writer = writer
        self.include = include
        self.fallback = fallback
        self.meter = meter

    async def run(self, request: ResearchRequest) -> AsyncIterator[Event]:
        state = RunState()
        try:
            validate(request)
            async for event in self._quick(request, state):
                yield event
        except SleuthError as exc:
            yield Failed(str(exc), exc.code, exc.exit_code, exc)

    async def _quick(self, request: ResearchRequest, state: RunState) -> AsyncIterator[Event]:
        deadline = Deadline(request.max_runtime_s)
        state.queries = [request.question.strip()]
        yield Planned(tuple(state.queries), "single")
        side: list[Event] = []
        results = await deadline.run(self._search_round(state.queries, request, state, side))
        for event in side:
            yield event
        candidates = self._candidates(results, request)
        policy = DomainPolicy(request.allow_domains, request.deny_domains)
        allowed: list[Candidate] = []
        for cand in candidates:
            try:
                if cand.result.page is None:
                    policy.check(cand.url)
            except BlockedURLError as exc:
                yield FetchSkipped(cand.url, exc.reason)
                state.causes.append(f"{cand.url}: {exc.reason}")
                continue
            allowed.append(cand)
        reads: list[Read] = []
        async for event in self._read(allowed, request, state, deadline, reads):
            yield event
        sources = build_sources(
            request.question,
            reads,
            EvidenceLimits(request.max_sources, request.passages_per_source),
        )
        if not sources:
            raise NoSourcesError(no_sources_message(state))
        yield PassagesKept(
            len(sources),
            sum(len(s.passages) for s in sources),
            sum(1 for s in sources if s.snippet),
        )
        notice = getattr(self.writer, "notice", None)
        if notice:
            yield Notice(notice)
        outcome = WriteOutcome()
        async for event in write_answer(self.writer, request, sources, deadline, outcome):
            yield event
        yield Done(self._result(request, state, sources, outcome))

    async def _search_round(
        self,
        queries: Sequence[str],
        request: ResearchRequest,
        state: RunState,
        side: list[Event],
    ) -> list[list[SearchResult]]:
        local: list[list[SearchResult]] = []
        if self.include is not None:
            local = await self._search_all(self.include, queries, request, state, side)
        lists = await self._search_all(self.search, queries, request, state, side)
        if not any(lists) and not any(local) and self.fallback is not None:
            side.append(
                Notice(
                    f"search found nothing ({'; '.join(state.causes) or 'no results'}); "
                    f"retrying through the fallback backend {self.fallback.name}"
                )
            )
            lists = await self._search_all(self.fallback, queries, request, state, side)
        return local + lists

    async def _search_all(
        self,
        backend: SearchBackend,
        queries: Sequence[str],
        request: ResearchRequest,
        state: RunState,
        side: list[Event],
    ) -> list[list[SearchResult]]:
        async def one(q: str) -> tuple[list[SearchResult], SleuthError | None, int]:
            started = time.monotonic()
            query = SearchQuery(q, request.max_results, report=side.append)
            try:
                found = await backend.search(query)
                return found, None, int((time.monotonic() - started) * 1000)
            except SearchError as exc:
                return [], exc, int((time.monotonic() - started) * 1000)

        outcomes = await asyncio.gather(*(one(q) for q in queries))
        lists = []
        for q, (found, error, ms) in zip(queries, outcomes, strict=True):
            state.searches += 1
            state.search_ms += ms
            if error is not None:
                state.causes.append(f"{backend.name}: {error}")
                side.append(SearchDegraded(backend.name, str(error)))
            else:
                side.append(Searched(q, backend.name, len(found), ms))
            lists.append(found)
        return lists

    def _candidates(
        self, results: list[list[SearchResult]], request: ResearchRequest
    ) -> list[Candidate]:
        return cap_per_site(fuse(results), request.max_results, request.per_site)

    async def _read(
        self,
        candidates: list[Candidate],
        request: ResearchRequest,
        state: RunState,
        deadline: Deadline,
        reads: list[Read],
    ) -> AsyncIterator[Event]:
        started = time.monotonic()
        to_fetch = [c for c in candidates if c.result.page is None]
        limits = ReadLimits(
            deadline.cap(request.read_deadline_s),
            request.settle_after,
            request.settle_wait_s,
            request.concurrency,
        )
        outcome = ReadOutcome()
        async for event in read_all(to_fetch, self.fetcher, limits, outcome):
            yield event
        state.read_ms = int((time.monotonic() - started) * 1000)
        state.pages_read = len(outcome.pages)
        for url, reason in outcome.failed.items():
            state.causes.append(f"{url}: {reason}")
        for cand in candidates:
            if cand.result.page is not None:
                reads.append(Read(cand, cand.result.page))
            elif cand.url in outcome.pages:
                reads.append(Read(cand, outcome.pages[cand.url]))
            elif cand.url not in outcome.blocked:
                reads.append(Read(cand, None))
        deadline.check()

    def _result(
        self,
        request: ResearchRequest,
        state: RunState,
        sources: list[Source],
        outcome: WriteOutcome,
    ) -> Result:
        finished = finish_answer(outcome.text, sources, request)
        by_model = self.meter.by_model() if hasattr(self.meter, "by_model") else {}
        usage = Usage(
            searches=state.searches,
            pages_read=state.pages_read,
            rounds=1,
            plan="single",
            duration_ms=state.elapsed_ms(),
            search_ms=state.search_ms,
            read_ms=state.read_ms,
            model_ms=outcome.model_ms,
            by_model=by_model,
        )
        return Result(
            query=request.question.strip(),
            answer=finished.answer,
            citations=finished.citations,
            sources=tuple(sources),
            queries=tuple(state.queries),
            confidence=finished.confidence,
            verification=finished.verification,
            source_trust=finished.source_trust,
            usage=usage,
            writer=outcome.writer,
        )


class Deadline:
    """The run's wall-clock limit (--max-runtime); every phase takes what is left."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.stop = None if seconds is None else time.monotonic() + seconds

    def remaining(self) -> float | None:
        return None if self.stop is None else self.stop - time.monotonic()

    def cap(self, seconds: float) -> float:
        left = self.remaining()
        return seconds if left is None else max(0.0, min(seconds, left))

    def check(self) -> None:
        left = self.remaining()
        if left is not None and left <= 0:
            raise DeadlineExceeded(f"stopped at the --max-runtime limit of {self.seconds:g} s")

    async def run(self, awaitable: Awaitable[T]) -> T:
        self.check()
        try:
            return await asyncio.wait_for(awaitable, self.remaining())
        except TimeoutError:
            raise DeadlineExceeded(
                f"stopped at the --max-runtime limit of {self.seconds:g} s"
            ) from None


def validate(request: ResearchRequest) -> None:
    question = request.question.strip()
    if not question:
        raise UsageError("the question is empty")
    if len(question) > MAX_QUESTION_CHARS:
        raise UsageError(
            f"the question is {len(question):,} characters; the limit is {MAX_QUESTION_CHARS:,}"
        )
    if not 0.0 <= request.cite_min_recall <= 1.0:
        raise UsageError("--cite-min-recall must be between 0 and 1")
    if request.max_sources < 1 or request.max_results < 1:
        raise UsageError("--max-sources and the result count must be at least 1")


def no_sources_message(state: RunState) -> str:
    if not state.causes:
        return "no sources found: search returned no results for the question"
    shown = "; ".join(state.causes[:8])
    more = f" (and {len(state.causes) - 8} more)" if len(state.causes) > 8 else ""
    return f"no sources found: {shown}{more}"
