"""The research engine: `Engine.run(request)` is an async iterator of events ending in `Done`.

Quick mode (DESIGN §2): search (while a triage of the question runs) → read under deadlines →
for a two-step question, bridge through an entity named by the pages read → write → if the writer
names a missing fact, one follow-up search and a rewrite → check citations. Deep mode lives in
`deep.py`. The engine receives ready adapters and never prints or looks anything up by name.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import Any

from ..deadline import Deadline
from ..errors import NoSourcesError, SleuthError, UsageError
from ..events import Done, Event, Failed, Notice, PassagesKept, Planned, Verified
from ..pipeline.answer import FinishedAnswer, finish_answer
from ..pipeline.candidates import Candidate
from ..pipeline.evidence import Read, Segment, build_segmented
from ..pipeline.gather import Backends, Gathering, RoundLimits, run_round
from ..pipeline.trust import check_mode, rate_sources
from ..pipeline.write.run import WriteOutcome, write_answer
from ..ports import Fetcher, SearchBackend, Writer
from ..text import clip
from ..think.hops import SINGLE, Hopper, Triage
from ..think.plan import Critic, HeuristicCritic, HeuristicPlanner, Planner
from ..think.structured import Structurer, check_schema
from ..types import Citation, Plan, ResearchRequest, Result, Source, Usage

MAX_QUESTION_CHARS = 2000
MAX_QUICK_ROUNDS = 3
TRIAGE_GRACE_S = 2.0  # triage not ready this long after the first round is ignored
EXTRA_SOURCES = 4  # a hop or follow-up adds at most this many sources
EXTRA_READ_S = 4.0


@dataclass(frozen=True, slots=True)
class Stages:
    """The thinking stages; model-backed when an LLM is configured, heuristics otherwise."""

    planner: Planner = field(default_factory=HeuristicPlanner)
    critic: Critic = field(default_factory=HeuristicCritic)
    hopper: Hopper | None = None
    structurer: Structurer | None = None


@dataclass(slots=True)
class Drafted:
    """A written and checked answer over a set of sources."""

    sources: tuple[Source, ...]
    outcome: WriteOutcome
    finished: FinishedAnswer


@dataclass(slots=True)
class RunInfo:
    rounds: int = 1
    plan: Plan = "single"
    hops: int = 0


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
        stages: Stages | None = None,
    ) -> None:
        self.backends = Backends(search, fetcher, include, fallback)
        self.writer = writer
        self.meter = meter
        self.stages = stages or Stages()

    async def run(self, request: ResearchRequest) -> AsyncIterator[Event]:
        from .deep import deep_run

        started = time.monotonic()
        try:
            validate(request, self.stages)
            gathering = Gathering(request)
            gathering.segments.append(Segment(0, request.question.strip(), request.source_cap))
            deadline = Deadline(request.max_runtime_s)
            flow = deep_run if request.depth == "deep" else quick_run
            async for event in flow(self, request, gathering, deadline):
                if isinstance(event, Done):
                    event = Done(_with_duration(event.result, started))
                yield event
        except SleuthError as exc:
            yield Failed(str(exc), exc.code, exc.exit_code, exc)

    async def rewrite(self, request: ResearchRequest) -> AsyncIterator[Event]:
        """Write a new answer from `request.seeds` only: no search and no reading (resume)."""
        started = time.monotonic()
        try:
            validate(request, self.stages)
            gathering = Gathering(request)
            gathering.segments.append(Segment(0, request.question.strip(), request.source_cap))
            gathering.reads = [Read(Candidate(r, 0.0, 1), r.page) for r in request.seeds]
            drafted: list[Drafted] = []
            async for event in self.draft(
                request, gathering, Deadline(request.max_runtime_s), drafted
            ):
                yield event
            info = RunInfo(rounds=0)
            yield Done(_with_duration(self.result(request, gathering, drafted[-1], info), started))
        except SleuthError as exc:
            yield Failed(str(exc), exc.code, exc.exit_code, exc)

    def sources(self, request: ResearchRequest, gathering: Gathering) -> tuple[Source, ...]:
        built = build_segmented(gathering.reads, gathering.segments, request.passages_per_source)
        return rate_sources(built)

    async def draft(
        self,
        request: ResearchRequest,
        gathering: Gathering,
        deadline: Deadline,
        out: list[Drafted],
        aspects: tuple[str, ...] = (),
        round_no: int = 1,
    ) -> AsyncIterator[Event]:
        """Number the sources gathered so far, write from them, and check the citations."""
        sources = self.sources(request, gathering)
        if not sources:
            raise NoSourcesError(no_sources_message(gathering.causes))
        yield PassagesKept(
            len(sources),
            sum(len(s.passages) for s in sources),
            sum(1 for s in sources if s.snippet),
        )
        if request.schema is not None:
            out.append(await self._structured(request, sources, deadline))
            return
        notice = getattr(self.writer, "notice", None)
        if notice and round_no == 1:
            yield Notice(notice)
            if request.language:
                yield Notice(
                    "--language needs an LLM; the extractive answer keeps the sources' language"
                )
        outcome = WriteOutcome()
        async for event in write_answer(
            self.writer, request, sources, deadline, outcome, aspects, round_no
        ):
            yield event
        finished = finish_answer(outcome.text, sources, request)
        yield Verified(finished.verification.checked, finished.verification.supported)
        out.append(Drafted(sources, outcome, finished))

    async def _structured(
        self, request: ResearchRequest, sources: tuple[Source, ...], deadline: Deadline
    ) -> Drafted:
        assert self.stages.structurer is not None and request.schema is not None
        started = time.monotonic()
        data = await deadline.run(
            self.stages.structurer.fill(request.question.strip(), request.schema, sources)
        )
        outcome = WriteOutcome("", "llm", int((time.monotonic() - started) * 1000))
        finished = finish_answer("", sources, replace(request, verify_cites=False))
        everything = tuple(
            Citation(s.number, s.url, s.title, clip(s.passages[0].text, 300) if s.passages else "")
            for s in sources
        )
        return Drafted(
            sources, outcome, replace(finished, answer="", citations=everything, data=data)
        )

    def result(
        self, request: ResearchRequest, gathering: Gathering, drafted: Drafted, info: RunInfo
    ) -> Result:
        finished = drafted.finished
        by_model = self.meter.by_model() if hasattr(self.meter, "by_model") else {}
        usage = Usage(
            searches=gathering.searches,
            pages_read=gathering.pages_read,
            rounds=info.rounds,
            plan=info.plan,
            hops=info.hops,
            search_ms=gathering.search_ms,
            read_ms=gathering.read_ms,
            model_ms=drafted.outcome.model_ms,
            by_model=by_model,
        )
        return Result(
            query=request.question.strip(),
            answer=None if finished.data is not None else finished.answer,
            citations=finished.citations,
            sources=drafted.sources,
            queries=tuple(gathering.queries),
            confidence=finished.confidence,
            confidence_reasons=finished.confidence_reasons,
            verification=finished.verification,
            source_trust=finished.source_trust,
            usage=usage,
            data=finished.data,
            writer=drafted.outcome.writer,
        )


async def quick_run(
    engine: Engine, request: ResearchRequest, gathering: Gathering, deadline: Deadline
) -> AsyncIterator[Event]:
    question = request.question.strip()
    triage = _start_triage(engine, request)
    yield Planned((question,), "single")
    limits = RoundLimits(
        request.max_results,
        deadline.cap(request.read_deadline_s),
        request.settle_after,
        request.settle_wait_s,
    )
    async for event in deadline.guard(
        run_round(engine.backends, gathering, [question], limits, request.seeds)
    ):
        yield event
    info = RunInfo()
    if triage is not None:
        async for event in _hop(engine, request, gathering, deadline, triage, info):
            yield event
    drafted: list[Drafted] = []
    async for event in engine.draft(request, gathering, deadline, drafted):
        yield event
    if info.hops == 0 and drafted[-1].finished.missing and info.rounds < MAX_QUICK_ROUNDS:
        async for event in _follow_up(engine, request, gathering, deadline, drafted, info):
            yield event
    yield Done(engine.result(request, gathering, drafted[-1], info))


def _start_triage(engine: Engine, request: ResearchRequest) -> asyncio.Task[Triage] | None:
    hopper = engine.stages.hopper
    if hopper is None or not request.hops or request.schema is not None:
        return None
    return asyncio.create_task(hopper.triage(request.question.strip()))


async def _hop(
    engine: Engine,
    request: ResearchRequest,
    gathering: Gathering,
    deadline: Deadline,
    task: asyncio.Task[Triage],
    info: RunInfo,
) -> AsyncIterator[Event]:
    """Bridge a two-step question through an entity named by the pages already read."""
    triage = await _triage_result(task, info)
    if triage.kind != "multi_hop" or engine.stages.hopper is None:
        return
    info.plan = "multi_hop"
    hopper, question = engine.stages.hopper, request.question.strip()
    entity = await deadline.run(hopper.bridge(question, triage, engine.sources(request, gathering)))
    if entity is None and triage.first:
        async for event in _extra_round(engine, request, gathering, deadline, triage.first, info):
            yield event
        entity = await deadline.run(
            hopper.bridge(question, triage, engine.sources(request, gathering))
        )
    if entity is None or info.rounds >= MAX_QUICK_ROUNDS:
        yield Notice("two-step question: the pages read do not name the intermediate entity")
        return
    async for event in _extra_round(
        engine, request, gathering, deadline, triage.fill(entity), info
    ):
        yield event
    info.hops = 1


async def _triage_result(task: asyncio.Task[Triage], info: RunInfo) -> Triage:
    try:
        return await asyncio.wait_for(task, TRIAGE_GRACE_S)
    except (TimeoutError, SleuthError):
        info.plan = "unavailable"
        return SINGLE


async def _extra_round(
    engine: Engine,
    request: ResearchRequest,
    gathering: Gathering,
    deadline: Deadline,
    query: str,
    info: RunInfo,
) -> AsyncIterator[Event]:
    """One more search of at most EXTRA_SOURCES new sources, ranked against its own query."""
    info.rounds += 1
    yield Planned((query,), info.plan, info.rounds)
    gathering.segments.append(Segment(len(gathering.reads), query, EXTRA_SOURCES))
    limits = RoundLimits(EXTRA_SOURCES, deadline.cap(EXTRA_READ_S), EXTRA_SOURCES, 0.5)
    async for event in deadline.guard(run_round(engine.backends, gathering, [query], limits)):
        yield event


async def _follow_up(
    engine: Engine,
    request: ResearchRequest,
    gathering: Gathering,
    deadline: Deadline,
    drafted: list[Drafted],
    info: RunInfo,
) -> AsyncIterator[Event]:
    """The writer named a missing fact: search it once, then rewrite; keep the first answer
    if the rewrite fails."""
    missing = drafted[-1].finished.missing or ""
    yield Notice(f"the writer needs more: searching {missing!r}")
    try:
        async for event in _extra_round(engine, request, gathering, deadline, missing, info):
            yield event
        async for event in engine.draft(
            request, gathering, deadline, drafted, round_no=info.rounds
        ):
            yield event
    except (SleuthError, TimeoutError) as exc:
        if isinstance(exc, UsageError):
            raise
        yield Notice(f"the follow-up failed ({exc}); keeping the first answer")


def _with_duration(result: Result, started: float) -> Result:
    usage = replace(result.usage, duration_ms=int((time.monotonic() - started) * 1000))
    return replace(result, usage=usage)


def validate(request: ResearchRequest, stages: Stages) -> None:
    question = request.question.strip()
    if not question:
        raise UsageError("the question is empty")
    if len(question) > MAX_QUESTION_CHARS:
        raise UsageError(
            f"the question is {len(question):,} characters; the limit is {MAX_QUESTION_CHARS:,}"
        )
    if not 0.0 <= request.cite_min_recall <= 1.0:
        raise UsageError("--cite-min-recall must be between 0 and 1")
    if request.source_cap < 1 or request.max_results < 1:
        raise UsageError("--max-sources and the result count must be at least 1")
    if request.dedupe_threshold is not None and not 0.0 < request.dedupe_threshold <= 1.0:
        raise UsageError("--dedupe-threshold must be above 0 and at most 1")
    if request.deep_rounds < 0:
        raise UsageError("--deep takes a number of rounds of 0 or more")
    check_mode(request.source_authority)
    if request.schema is not None:
        check_schema(request.schema)
        if stages.structurer is None:
            raise UsageError(
                "--schema needs an LLM to fill it: set SLEUTH_BASE_URL, "
                "OPENAI_API_KEY or ANTHROPIC_API_KEY (or pass --base-url)"
            )


def no_sources_message(causes: list[str]) -> str:
    if not causes:
        return "no sources found: search returned no results for the question"
    shown = "; ".join(causes[:8])
    more = f" (and {len(causes) - 8} more)" if len(causes) > 8 else ""
    return f"no sources found: {shown}{more}"
