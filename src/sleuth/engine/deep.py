"""Deep mode: plan sub-queries, then rounds of search → read → write → critic until the critic
says the answer is complete or the round limit is reached.

Each round reads up to 24 new candidates within 20 s; up to 15 sources are kept across rounds
and the answer is re-written from all of them every round. Sentences the citation check found
weak are handed to the critic as the first gaps to fill.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..events import Critiqued, Planned
from ..llm.parse import Verdict
from ..pipeline.evidence import Segment
from ..pipeline.gather import Gathering, RoundLimits
from ..think.plan import HeuristicCritic, HeuristicPlanner
from ..types import Result
from .run import Drafted, Run

DEEP_CANDIDATES = 24
DEEP_READ_S = 20.0
DEEP_SETTLE_AFTER = 12
DEEP_SETTLE_WAIT_S = 2.0


async def deep(run: Run) -> Result:
    request = run.request
    planner = run.parts.stages.planner
    planned = await run.with_model(
        lambda: planner.plan(run.question, language=request.search_lang),
        lambda: HeuristicPlanner().plan(run.question),
        "planning from the question's own terms",
    )
    aspects = tuple(run.vetted(planned, "planned"))
    queries = _distinct([run.question, *aspects])
    drafted: Drafted | None = None
    for round_no in range(1, request.deep_rounds + 2):
        run.rounds = round_no
        run.emit(Planned(tuple(queries), "single", round_no))
        _rank_against_all(run)
        limits = RoundLimits(
            DEEP_CANDIDATES, run.deadline.cap(DEEP_READ_S), DEEP_SETTLE_AFTER, DEEP_SETTLE_WAIT_S
        )
        await run.search_and_read(queries, limits, request.seeds if round_no == 1 else ())
        drafted = await run.draft(aspects, round_no)
        if round_no > request.deep_rounds or request.schema is not None:
            break
        verdict = await _critique(run, drafted)
        proposed = [] if verdict.complete else run.vetted(verdict.queries, "critic")
        queries = _new_queries(proposed, run.gathering)
        run.emit(Critiqued(round_no, not queries, tuple(verdict.missing), tuple(queries)))
        if not queries:
            break
    assert drafted is not None  # the loop runs at least once
    return run.result(drafted)


def _rank_against_all(run: Run, extra: Sequence[str] = ()) -> None:
    """Deep runs rank every read against the question and all queries asked so far."""
    terms = " ".join(dict.fromkeys([run.question, *run.gathering.queries, *extra]))
    run.gathering.segments[:] = [Segment(0, terms, run.request.source_cap)]


async def _critique(run: Run, drafted: Drafted) -> Verdict:
    weak = [u.sentence for u in drafted.finished.verification.unsupported]
    critic, answer, sources = run.parts.stages.critic, drafted.finished.answer, drafted.sources
    return await run.with_model(
        lambda: critic.review(
            run.question, answer, weak, sources, language=run.request.search_lang
        ),
        lambda: HeuristicCritic().review(run.question, answer, weak, sources),
        "finding gaps from the question's own terms",
    )


def _distinct(queries: list[str], asked: Sequence[str] = ()) -> list[str]:
    """Each query once, and none asked before (a planner may repeat the question): searching
    one twice wastes a round's time and counts its results twice in the fusion."""
    seen = {_key(q) for q in asked}
    kept = []
    for query in queries:
        key = _key(query)
        if key and key not in seen:
            seen.add(key)
            kept.append(query.strip())
    return kept


def _key(query: str) -> str:
    return " ".join(query.lower().split()).rstrip("?.! ")


def _new_queries(proposed: list[str], gathering: Gathering) -> list[str]:
    return _distinct(proposed, gathering.queries)


async def explore(run: Run, queries: Sequence[str], earlier: Sequence[str] = ()) -> Result:
    """One deep-sized round of the given queries over what was gathered before (the request's
    seeds), ranked against the question and every query so far; nothing is written."""
    run.emit(Planned(tuple(queries), "single", 1))
    _rank_against_all(run, extra=[*earlier, *queries])
    limits = RoundLimits(
        DEEP_CANDIDATES, run.deadline.cap(DEEP_READ_S), DEEP_SETTLE_AFTER, DEEP_SETTLE_WAIT_S
    )
    await run.search_and_read(list(queries), limits, run.request.seeds)
    return run.gathered()
