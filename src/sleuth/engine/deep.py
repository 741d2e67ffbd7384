"""Deep mode: plan sub-queries, then rounds of search → read → write → critic until the critic
says the answer is complete or the round limit is reached.

Each round reads up to 24 new candidates within 20 s; up to 15 sources are kept across rounds
and the answer is re-written from all of them every round. Sentences the citation check found
weak are handed to the critic as the first gaps to fill.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from ..deadline import Deadline
from ..events import Critiqued, Done, Event, Planned
from ..llm.parse import Verdict
from ..pipeline.evidence import Segment
from ..pipeline.gather import Gathering, RoundLimits, run_round
from ..types import ResearchRequest

if TYPE_CHECKING:
    from .engine import Drafted, Engine

DEEP_CANDIDATES = 24
DEEP_READ_S = 20.0
DEEP_SETTLE_AFTER = 12
DEEP_SETTLE_WAIT_S = 2.0


async def deep_run(
    engine: Engine, request: ResearchRequest, gathering: Gathering, deadline: Deadline
) -> AsyncIterator[Event]:
    from .engine import RunInfo

    question = request.question.strip()
    aspects = tuple(await deadline.run(engine.stages.planner.plan(question)))
    queries = [question, *aspects]
    info = RunInfo(rounds=0)
    drafted: list[Drafted] = []
    for round_no in range(1, request.deep_rounds + 2):
        info.rounds = round_no
        yield Planned(tuple(queries), "single", round_no)
        _rank_against(gathering, question, request)
        limits = RoundLimits(
            DEEP_CANDIDATES, deadline.cap(DEEP_READ_S), DEEP_SETTLE_AFTER, DEEP_SETTLE_WAIT_S
        )
        seeds = request.seeds if round_no == 1 else ()
        async for event in deadline.guard(
            run_round(engine.backends, gathering, queries, limits, seeds)
        ):
            yield event
        async for event in engine.draft(request, gathering, deadline, drafted, aspects, round_no):
            yield event
        if round_no > request.deep_rounds or request.schema is not None:
            break
        verdict = await _critique(engine, request, drafted[-1], deadline)
        queries = [] if verdict.complete else _new_queries(verdict.queries, gathering)
        yield Critiqued(round_no, not queries, tuple(verdict.missing), tuple(queries))
        if not queries:
            break
    yield Done(engine.result(request, gathering, drafted[-1], info))


def _rank_against(gathering: Gathering, question: str, request: ResearchRequest) -> None:
    """Deep runs rank every read against the question and all queries asked so far."""
    terms = " ".join(dict.fromkeys([question, *gathering.queries]))
    gathering.segments[:] = [Segment(0, terms, request.source_cap)]


async def _critique(
    engine: Engine, request: ResearchRequest, drafted: Drafted, deadline: Deadline
) -> Verdict:
    weak = [u.sentence for u in drafted.finished.verification.unsupported]
    return await deadline.run(
        engine.stages.critic.review(
            request.question.strip(), drafted.finished.answer, weak, drafted.sources
        )
    )


def _new_queries(proposed: list[str], gathering: Gathering) -> list[str]:
    asked = {q.strip().lower() for q in gathering.queries}
    return [q for q in proposed if q.strip() and q.strip().lower() not in asked]
