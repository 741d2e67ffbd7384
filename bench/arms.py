"""The arms of the bench: Sleuth's modes and the plain baselines, measured side by side.

An arm turns a question into an `Observation`; adding one is one more entry in `ARMS`.
Sleuth runs three ways: quick as shipped, quick with the heuristic two-step triage on
(`Settings(heuristic_hops=True)`, off by default without an LLM: issue 5 asks whether it helps),
and deep with two critic rounds. Both baselines use Sleuth's own search backend, fetcher and
extractive writer, so a ratio isolates what Sleuth's reading and passage selection add.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from sleuth.app.assemble import Settings, build_fetcher, build_search_backends
from sleuth.engine.engine import Engine
from sleuth.errors import FetchError, NoSourcesError
from sleuth.evaluate.questions import Question
from sleuth.evaluate.runner import Arm, SleuthArm, observe_engine
from sleuth.evaluate.score import Observation
from sleuth.pipeline.answer import finish_answer
from sleuth.pipeline.write.extractive import ExtractiveWriter
from sleuth.ports import SearchQuery, WriteTask
from sleuth.types import Page, Passage, ResearchRequest, Result, Source, Usage

TOP_PAGES = 3
READ_DEADLINE_S = 6.0


class NoReading:
    """A fetcher that reads nothing: the engine then keeps search snippets only."""

    async def fetch(self, url: str) -> Page:
        raise FetchError("snippets-only baseline: pages are not read", url)

    async def aclose(self) -> None:
        return None


@dataclass(frozen=True, slots=True)
class SnippetsArm:
    """Baseline 1: search, no reading; the writer sees the search snippets."""

    settings: Settings

    async def __call__(self, q: Question) -> Observation:
        primary, _, _ = build_search_backends(self.settings)
        engine = Engine(primary, NoReading(), ExtractiveWriter())
        return await observe_engine(engine, ResearchRequest(q.question))


@dataclass(frozen=True, slots=True)
class TopPagesArm:
    """Baseline 2: the top three results read whole, no passage selection or ranking."""

    settings: Settings

    async def __call__(self, q: Question) -> Observation:
        started = time.monotonic()
        primary, _, _ = build_search_backends(self.settings)
        fetcher = build_fetcher(self.settings)
        try:
            hits = (await primary.search(SearchQuery(q.question, 10)))[:TOP_PAGES]
            tasks = [asyncio.create_task(fetcher.fetch(h.url)) for h in hits]
            done, pending = (
                await asyncio.wait(tasks, timeout=READ_DEADLINE_S) if tasks else ((), ())
            )
            for task in pending:
                task.cancel()
            pages = [t.result() for t in tasks if t in done and t.exception() is None]
        finally:
            await fetcher.aclose()
        if not pages:
            raise NoSourcesError("top-pages baseline: no page could be read")
        result = await _write_whole(q.question, pages, int((time.monotonic() - started) * 1000))
        return Observation(
            result,
            int((time.monotonic() - started) * 1000),
            candidates=tuple(h.url for h in hits),
            read=tuple(p.url for p in pages),
        )


async def _write_whole(question: str, pages: list[Page], elapsed_ms: int) -> Result:
    sources = tuple(
        Source(
            number=i,
            url=p.url,
            title=p.title,
            score=0.0,
            passages=(Passage(p.text, 0.0, 0),),
            fetched_at=p.fetched_at,
            text=p.text,
        )
        for i, p in enumerate(pages, 1)
    )
    request = ResearchRequest(question)
    writer = ExtractiveWriter()
    text = "".join([c async for c in writer.write(WriteTask(question, sources, "answer", None))])
    finished = finish_answer(text, sources, request)
    return Result(
        query=question,
        answer=finished.answer,
        citations=finished.citations,
        sources=sources,
        queries=(question,),
        confidence=finished.confidence,
        confidence_reasons=finished.confidence_reasons,
        verification=finished.verification,
        source_trust=finished.source_trust,
        usage=Usage(searches=1, pages_read=len(pages), duration_ms=elapsed_ms),
    )


DEEP_ROUNDS = 2


def quick(settings: Settings) -> Arm:
    return SleuthArm(settings, ResearchRequest("?"))


def quick_hops(settings: Settings) -> Arm:
    return SleuthArm(replace(settings, heuristic_hops=True), ResearchRequest("?"))


def deep(settings: Settings) -> Arm:
    return SleuthArm(settings, ResearchRequest("?", depth="deep", deep_rounds=DEEP_ROUNDS))


ARMS: dict[str, Callable[[Settings], Arm]] = {
    "quick": quick,
    "quick+hops": quick_hops,
    "deep": deep,
    "snippets": SnippetsArm,
    "top3": TopPagesArm,
}
DEFAULT_ARMS = ("quick", "quick+hops", "deep", "snippets", "top3")
BASELINES = ("snippets", "top3")
SLEUTH_ARMS = ("quick", "quick+hops", "deep")
REFERENCE = "quick"  # the other Sleuth arms are compared with it question by question
