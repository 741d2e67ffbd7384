"""One research run: the ready parts it uses and the state it builds, created per request.

`Parts` are the adapters a run works with (search backends, fetcher, writer, thinking stages,
meter); the application builds them per request around its shared clients, so nothing a run
changes — the cost meter, a benched backend, the fallback chosen from `since` — leaks into another
run. `Run` holds what the run has gathered, its deadline, the tasks it owns and its event
emitter; the quick and deep flows are functions of a `Run`.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

from ..errors import LLMError
from ..events import Emit, Notice, PassagesKept, Verified
from ..fetch.domains import DomainPolicy
from ..llm.meter import Meter
from ..pipeline.answer import FinishedAnswer, finish_answer
from ..pipeline.evidence import build_segmented
from ..pipeline.gather import Backends, Gathering, RoundLimits, nothing_found, run_round
from ..pipeline.illustrate import DOWNLOAD_DEADLINE_S, figures
from ..pipeline.trust import rate_sources
from ..pipeline.write.extractive import ExtractiveWriter
from ..pipeline.write.run import WriteOutcome, write_answer
from ..ports import Fetcher, ImageFetcher, SearchBackend, Writer, WriteTask
from ..runtime import Deadline, Tasks
from ..text import clip
from ..think.clarify import Clarifier, NoClarifier
from ..think.hops import Hopper
from ..think.plan import Critic, HeuristicCritic, HeuristicPlanner, Planner
from ..think.structured import Structurer
from ..think.vet import Text, vet
from ..types import Citation, Plan, ResearchRequest, Result, SearchResult, Source, Usage

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Stages:
    """The thinking stages; model-backed when an LLM is configured, heuristics otherwise."""

    planner: Planner = field(default_factory=HeuristicPlanner)
    critic: Critic = field(default_factory=HeuristicCritic)
    clarifier: Clarifier = field(default_factory=NoClarifier)
    hopper: Hopper | None = None
    structurer: Structurer | None = None


@dataclass(frozen=True, slots=True)
class Parts:
    """The ready adapters one run uses."""

    search: SearchBackend
    fetcher: Fetcher
    writer: Writer
    include: SearchBackend | None = None
    fallback: SearchBackend | None = None
    meter: Meter | None = None
    stages: Stages = field(default_factory=Stages)
    images: ImageFetcher | None = None  # downloads the images a report shows (request.images)

    @property
    def backends(self) -> Backends:
        return Backends(self.search, self.fetcher, self.include, self.fallback)


@dataclass(frozen=True, slots=True)
class Drafted:
    """A written and checked answer over a set of sources."""

    sources: tuple[Source, ...]
    outcome: WriteOutcome
    finished: FinishedAnswer


@dataclass(slots=True)
class Run:
    """The state of one run; never shared between runs."""

    id: str
    request: ResearchRequest
    parts: Parts
    emit: Emit
    deadline: Deadline
    gathering: Gathering
    tasks: Tasks = field(default_factory=Tasks)
    rounds: int = 1
    plan: Plan = "single"
    hops: int = 0
    started: float = field(default_factory=time.monotonic)
    model_failure: LLMError | None = None  # the model failed after its retries: stop asking it

    @property
    def question(self) -> str:
        return self.request.question.strip()

    async def search_and_read(
        self, queries: list[str], limits: RoundLimits, seeds: Sequence[SearchResult] = ()
    ) -> None:
        """One round, bounded by what is left of the run's deadline."""
        round_ = run_round(
            self.parts.backends, self.gathering, queries, limits, self.emit, self.tasks, seeds
        )
        await self.deadline.run(round_)

    def vetted(self, proposed: Sequence[str], role: str) -> list[str]:
        """The model-proposed queries that may be searched; each refusal is a notice."""
        # Every result seen, read or not: its title and snippet are public words of its site
        # too (what `vet` counts to vouch for a term the question lacks).
        texts = [
            Text(r.candidate.url, f"{r.candidate.result.title}\n{r.candidate.result.snippet}"
                 + (f"\n{r.page.text}" if r.page is not None else ""))
            for r in self.gathering.reads
        ]  # fmt: skip
        if getattr(self.parts.search, "private", False):
            texts = []  # the queries never leave the machine
        kept: list[str] = []
        for query in proposed:
            verdict = vet(query, self.question, texts)
            if verdict.query is None:
                self.emit(Notice(f"{role} search not made: {verdict.reason}"))
            elif verdict.query not in kept:
                kept.append(verdict.query)
        return kept

    def sources(self) -> tuple[Source, ...]:
        g = self.gathering
        built = build_segmented(g.reads, g.segments, self.request.passages_per_source)
        return rate_sources(built)

    async def draft(
        self, aspects: tuple[str, ...] = (), round_no: int = 1, fallback: bool = True
    ) -> Drafted:
        """Number the sources gathered so far, write from them, and check the citations. When
        the model fails, the extractive writer answers instead; a rewrite that has a first
        answer to keep passes `fallback=False` and gets the error."""
        sources = self.sources()
        if not sources:
            raise nothing_found(self.gathering)
        snippets = sum(1 for s in sources if s.snippet)
        self.emit(PassagesKept(len(sources), sum(len(s.passages) for s in sources), snippets))
        if self.request.schema is not None:
            return await self.deadline.run(self._structured(sources))
        if round_no == 1:
            self._writer_notices()
        task = self._write_task(sources, aspects)

        def write() -> Awaitable[WriteOutcome]:
            return write_answer(self.parts.writer, task, self.emit, round_no)

        if not fallback:
            outcome = await self.deadline.run(write())
        else:
            outcome = await self.with_model(
                write,
                lambda: write_answer(ExtractiveWriter(), task, self.emit, round_no),
                f"answering with the extractive writer from the {len(sources)} sources gathered",
            )
        finished = finish_answer(outcome.text, sources, self.request)
        self.emit(Verified(finished.verification.checked, finished.verification.supported))
        return Drafted(sources, outcome, finished)

    async def with_model(
        self,
        use: Callable[[], Awaitable[T]],
        instead: Callable[[], Awaitable[T]],
        fallback: str,
    ) -> T:
        """`use()` — a stage that calls the model — or, once the model has failed after its
        retries, `instead()` without it (said once in a notice), unless `require_llm` makes
        the failure end the run. A run never waits on a dead endpoint twice."""
        if self.model_failure is None:
            try:
                return await self.deadline.run(use())
            except LLMError as exc:
                self._model_failed(exc, fallback)
        return await self.deadline.run(instead())

    def _model_failed(self, exc: LLMError, fallback: str) -> None:
        if self.request.require_llm:
            raise LLMError(
                f"{exc} (require_llm is set, so there is no fallback)", setting="require_llm"
            ) from exc
        self.model_failure = exc
        message = f"the model failed: {exc}; {fallback} (require_llm makes this an error)"
        self.emit(Notice(message, setting="require_llm"))

    def _writer_notices(self) -> None:
        notice: str | None = getattr(self.parts.writer, "notice", None)
        if notice:
            self.emit(Notice(notice))
            if self.request.language:
                message = "language needs an LLM; the extractive answer keeps the sources' language"
                self.emit(Notice(message, setting="language"))

    def _write_task(self, sources: tuple[Source, ...], aspects: tuple[str, ...]) -> WriteTask:
        r = self.request
        return WriteTask(
            self.question, sources, r.output_kind, r.language, aspects, r.tldr, style=r.style
        )

    async def _structured(self, sources: tuple[Source, ...]) -> Drafted:
        structurer, schema = self.parts.stages.structurer, self.request.schema
        assert structurer is not None and schema is not None
        started = time.monotonic()
        data = await structurer.fill(self.question, schema, sources)
        outcome = WriteOutcome("", "llm", int((time.monotonic() - started) * 1000))
        finished = finish_answer("", sources, replace(self.request, verify_cites=False))
        everything = tuple(
            Citation(
                s.number,
                s.url,
                s.title,
                clip(s.passages[0].text, 300) if s.passages else "",
                s.location,
            )
            for s in sources
        )
        finished = replace(finished, answer="", citations=everything, data=data)
        return Drafted(sources, outcome, finished)

    async def illustrated(self, result: Result) -> Result:
        """`result` with images of its cited pages beside the sentences they illustrate, when
        the request asks for them (`pipeline/illustrate.py`)."""
        fetcher = self.parts.images
        if not self.request.images or fetcher is None or not result.answer:
            return result
        # Images are extras: the run's deadline shortens their wait, it never fails the run.
        within = self.deadline.cap(DOWNLOAD_DEADLINE_S)
        r = self.request
        policy = DomainPolicy.from_lists(r.allow_domains, r.deny_domains)
        found = await figures(
            result.answer, result.sources, result.verification, fetcher, within, policy
        )
        return replace(result, images=found)

    def gathered(self) -> Result:
        """What the run has gathered so far, with no answer written (a steered round)."""
        sources = self.sources()
        snippets = sum(1 for s in sources if s.snippet)
        self.emit(PassagesKept(len(sources), sum(len(s.passages) for s in sources), snippets))
        empty = finish_answer("", sources, replace(self.request, verify_cites=False))
        outcome = WriteOutcome("", "none", 0)
        return self.result(Drafted(sources, outcome, replace(empty, answer="")))

    def result(self, drafted: Drafted) -> Result:
        finished, g = drafted.finished, self.gathering
        meter = self.parts.meter
        usage = Usage(
            searches=g.searches,
            pages_read=g.pages_read,
            rounds=self.rounds,
            plan=self.plan,
            hops=self.hops,
            duration_ms=int((time.monotonic() - self.started) * 1000),
            search_ms=g.search_ms,
            read_ms=g.read_ms,
            model_ms=drafted.outcome.model_ms,
            by_model=meter.by_model() if meter is not None else {},
        )
        return Result(
            query=self.question,
            answer=None if finished.data is not None else finished.answer,
            citations=finished.citations,
            sources=drafted.sources,
            queries=tuple(g.queries),
            confidence=finished.confidence,
            confidence_reasons=finished.confidence_reasons,
            verification=finished.verification,
            source_trust=finished.source_trust,
            usage=usage,
            data=finished.data,
            writer=drafted.outcome.writer,
        )
