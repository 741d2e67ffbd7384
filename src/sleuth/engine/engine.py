"""The research engine: `Engine.run(request)` is an async iterator of events ending in `Done`
or `Failed`.

The engine is given ready parts and never prints or looks anything up by name. Each call to
`run` creates a `Run` (engine/run.py) that holds everything the run changes; the flow runs as a
task the run owns and reports through one emitter, which stamps each event with the run id and a
sequence number and queues it for the consumer. When the consumer stops reading — the run ended,
failed, or the caller closed the iterator — every task the run started is cancelled.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import replace

from ..errors import LLMNotConfigured, SleuthError, UsageError
from ..events import Done, Event, Failed
from ..limits import MAX_QUESTION_CHARS
from ..llm.meter import Meter
from ..pipeline.candidates import Candidate
from ..pipeline.evidence import Read, Segment
from ..pipeline.gather import Gathering
from ..pipeline.trust import check_mode
from ..ports import Fetcher, SearchBackend, Writer
from ..runtime import Deadline
from ..think.structured import check_schema
from ..types import ResearchRequest, Result
from .deep import deep, explore
from .quick import quick
from .run import Parts, Run, Stages

Flow = Callable[[Run], Awaitable[Result]]


class Engine:
    def __init__(
        self,
        search: SearchBackend,
        fetcher: Fetcher,
        writer: Writer,
        *,
        include: SearchBackend | None = None,
        fallback: SearchBackend | None = None,
        meter: Meter | None = None,
        stages: Stages | None = None,
    ) -> None:
        self.parts = Parts(search, fetcher, writer, include, fallback, meter, stages or Stages())

    @classmethod
    def of(cls, parts: Parts) -> Engine:
        engine = cls.__new__(cls)
        engine.parts = parts
        return engine

    def run(self, request: ResearchRequest, run_id: str | None = None) -> AsyncIterator[Event]:
        """Research `request`: plan, search, read, write, check."""
        flow: Flow = deep if request.depth == "deep" else quick
        return self._drive(request, flow, run_id)

    def rewrite(self, request: ResearchRequest, run_id: str | None = None) -> AsyncIterator[Event]:
        """Write a new answer from `request.seeds` only: no search and no reading (resume)."""
        return self._drive(request, _rewrite, run_id)

    def explore(
        self,
        request: ResearchRequest,
        queries: Sequence[str],
        earlier: Sequence[str] = (),
        run_id: str | None = None,
    ) -> AsyncIterator[Event]:
        """Search and read `queries` on top of `request.seeds` and stop before writing: the
        result has the sources gathered so far and no answer (a steered research round)."""

        async def flow(run: Run) -> Result:
            return await explore(run, queries, earlier)

        return self._drive(request, flow, run_id)

    async def _drive(
        self, request: ResearchRequest, flow: Flow, run_id: str | None
    ) -> AsyncIterator[Event]:
        queue: asyncio.Queue[Event] = asyncio.Queue()
        run_id = run_id or new_run_id()
        run = self._start(request, run_id, _stamper(run_id, queue))
        run.tasks.spawn(_finish(run, flow))
        try:
            while True:
                event = await queue.get()
                yield event
                if isinstance(event, Done | Failed):
                    return
        finally:
            await run.tasks.cancel()

    def _start(self, request: ResearchRequest, run_id: str, emit: Callable[[Event], None]) -> Run:
        gathering = Gathering(request)
        gathering.segments.append(Segment(0, request.question.strip(), request.source_cap))
        return Run(run_id, request, self.parts, emit, Deadline(request.max_runtime_s), gathering)


def _stamper(run_id: str, queue: asyncio.Queue[Event]) -> Callable[[Event], None]:
    """An emitter that numbers events from 1 and tags them with the run id."""
    counter = iter(range(1, 1 << 62))

    def emit(event: Event) -> None:
        queue.put_nowait(replace(event, run_id=run_id, seq=next(counter)))

    return emit


async def _finish(run: Run, flow: Flow) -> None:
    """Run the flow and emit how it ended; a SleuthError becomes `Failed`, never an exception."""
    try:
        validate(run.request, run.parts.stages)
        result = await run.illustrated(await flow(run))
    except SleuthError as exc:
        run.emit(Failed.of(exc))
    except Exception as exc:  # an adapter bug ends this run with a reason, never a hang
        run.emit(Failed.of(SleuthError(f"internal error: {type(exc).__name__}: {exc}")))
    else:
        run.emit(Done(result))


async def _rewrite(run: Run) -> Result:
    run.gathering.reads = [Read(Candidate(r, 0.0, 1), r.page) for r in run.request.seeds]
    run.rounds = 0
    return run.result(await run.draft())


def new_run_id() -> str:
    return uuid.uuid4().hex[:12]


def validate(request: ResearchRequest, stages: Stages) -> None:
    question = request.question.strip()
    if not question:
        raise UsageError("the question is empty", setting="question")
    if len(question) > MAX_QUESTION_CHARS:
        raise UsageError(
            f"the question is {len(question):,} characters; the limit is {MAX_QUESTION_CHARS:,}",
            setting="question",
        )
    _check_range(request.cite_min_recall, 0.0, 1.0, "cite_min_recall")
    if request.source_cap < 1:
        raise UsageError("max_sources must be at least 1", setting="max_sources")
    if request.max_results < 1:
        raise UsageError("max_results must be at least 1", setting="max_results")
    if request.dedupe_threshold is not None and not 0.0 < request.dedupe_threshold <= 1.0:
        raise UsageError(
            "dedupe_threshold must be above 0 and at most 1", setting="dedupe_threshold"
        )
    if request.deep_rounds < 0:
        raise UsageError("deep takes a number of rounds of 0 or more", setting="deep")
    check_mode(request.source_authority)
    if request.schema is not None:
        check_schema(request.schema)
        if stages.structurer is None:
            raise LLMNotConfigured(
                "schema needs an LLM to fill it: configure an LLM endpoint (base_url) or set "
                "OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY",
                setting="schema",
            )


def _check_range(value: float, low: float, high: float, setting: str) -> None:
    if not low <= value <= high:
        raise UsageError(f"{setting} must be between {low:g} and {high:g}", setting=setting)
