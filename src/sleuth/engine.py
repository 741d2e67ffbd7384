"""The research engine: `Engine.run(request)` is an async iterator of events ending in `Done`.

Quick mode (DESIGN §2): search → fuse and cap candidates → read in parallel under deadlines →
rank passages and number sources → write → check citations. The engine receives ready adapters
(search backend, fetcher, writer) and never prints, never looks anything up by name.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass
from typing import Any, TypeVar

from .answer import finish_answer
from .candidates import Candidate
from .errors import DeadlineExceeded, NoSourcesError, SleuthError, UsageError
from .events import Done, Event, Failed, Notice, PassagesKept, Planned
from .evidence import EvidenceLimits, Read, build_sources
from .gather import Backends, Gathering, RoundLimits, run_round
from .ports import Fetcher, SearchBackend, Writer
from .trust import check_mode, rate_sources
from .types import ResearchRequest, Result, Source, Usage
from .write.run import WriteOutcome, write_answer

MAX_QUESTION_CHARS = 2000
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Drafted:
    """A written and checked answer over a set of sources."""

    sources: tuple[Source, ...]
    outcome: WriteOutcome


class Engine:
    def __init__(
        self,
        search: SearchBackend,
        fetcher: Fetcher,
        writer: Writer,
        *,
        include: SearchBackend | None = None,
        fallback: SearchBackend | None = None,
        meter: Any = None,
    ) -> None:
        self.backends = Backends(search, fetcher, include, fallback)
        self.writer = writer
        self.meter = meter

    async def run(self, request: ResearchRequest) -> AsyncIterator[Event]:
        started = time.monotonic()
        try:
            validate(request)
            gathering = Gathering(request)
            async for event in self._quick(request, gathering, Deadline(request.max_runtime_s)):
                if isinstance(event, Done):
                    event = Done(_with_duration(event.result, started))
                yield event
        except SleuthError as exc:
            yield Failed(str(exc), exc.code, exc.exit_code, exc)

    async def rewrite(self, request: ResearchRequest) -> AsyncIterator[Event]:
        """Write a new answer from `request.seeds` only: no search and no reading (resume)."""
        started = time.monotonic()
        try:
            validate(request)
            gathering = Gathering(request)
            gathering.reads = [Read(Candidate(r, 0.0, 1), r.page) for r in request.seeds]
            drafted: list[Drafted] = []
            deadline = Deadline(request.max_runtime_s)
            async for event in self._draft(request, gathering, deadline, drafted):
                yield event
            yield Done(_with_duration(self._result(request, gathering, drafted[-1], 0), started))
        except SleuthError as exc:
            yield Failed(str(exc), exc.code, exc.exit_code, exc)

    async def _quick(
        self, request: ResearchRequest, gathering: Gathering, deadline: Deadline
    ) -> AsyncIterator[Event]:
        queries = [request.question.strip()]
        yield Planned(tuple(queries), "single")
        limits = RoundLimits(
            request.max_results,
            deadline.cap(request.read_deadline_s),
            request.settle_after,
            request.settle_wait_s,
        )
        async for event in deadline.guard(
            run_round(self.backends, gathering, queries, limits, request.seeds)
        ):
            yield event
        drafted: list[Drafted] = []
        async for event in self._draft(request, gathering, deadline, drafted):
            yield event
        yield Done(self._result(request, gathering, drafted[-1], rounds=1))

    async def _draft(
        self,
        request: ResearchRequest,
        gathering: Gathering,
        deadline: Deadline,
        out: list[Drafted],
    ) -> AsyncIterator[Event]:
        """Number the sources gathered so far and write an answer from them."""
        limits = EvidenceLimits(request.max_sources, request.passages_per_source)
        sources = rate_sources(build_sources(request.question, gathering.reads, limits))
        if not sources:
            raise NoSourcesError(no_sources_message(gathering.causes))
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
        out.append(Drafted(sources, outcome))

    def _result(
        self, request: ResearchRequest, gathering: Gathering, drafted: Drafted, rounds: int
    ) -> Result:
        sources = list(drafted.sources)
        finished = finish_answer(drafted.outcome.text, sources, request)
        by_model = self.meter.by_model() if hasattr(self.meter, "by_model") else {}
        usage = Usage(
            searches=gathering.searches,
            pages_read=gathering.pages_read,
            rounds=rounds,
            plan="single",
            search_ms=gathering.search_ms,
            read_ms=gathering.read_ms,
            model_ms=drafted.outcome.model_ms,
            by_model=by_model,
        )
        return Result(
            query=request.question.strip(),
            answer=finished.answer,
            citations=finished.citations,
            sources=tuple(sources),
            queries=tuple(gathering.queries),
            confidence=finished.confidence,
            verification=finished.verification,
            source_trust=finished.source_trust,
            usage=usage,
            writer=drafted.outcome.writer,
        )


def _with_duration(result: Result, started: float) -> Result:
    from dataclasses import replace

    usage = replace(result.usage, duration_ms=int((time.monotonic() - started) * 1000))
    return replace(result, usage=usage)


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

    def expired(self) -> DeadlineExceeded:
        return DeadlineExceeded(f"stopped at the --max-runtime limit of {self.seconds:g} s")

    async def run(self, awaitable: Awaitable[T]) -> T:
        left = self.remaining()
        if left is not None and left <= 0:
            raise self.expired()
        try:
            return await asyncio.wait_for(awaitable, left)
        except TimeoutError:
            raise self.expired() from None

    async def guard(self, stream: AsyncIterator[Event]) -> AsyncIterator[Event]:
        """Re-yield a stream's events, stopping it with DeadlineExceeded when time runs out."""
        try:
            while True:
                try:
                    event = await self.run(anext(stream))
                except StopAsyncIteration:
                    return
                yield event
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()


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
    if request.dedupe_threshold is not None and not 0.0 < request.dedupe_threshold <= 1.0:
        raise UsageError("--dedupe-threshold must be above 0 and at most 1")
    check_mode(request.source_authority)


def no_sources_message(causes: list[str]) -> str:
    if not causes:
        return "no sources found: search returned no results for the question"
    shown = "; ".join(causes[:8])
    more = f" (and {len(causes) - 8} more)" if len(causes) > 8 else ""
    return f"no sources found: {shown}{more}"
