"""Quick mode (DESIGN §2): search the question while a triage of it runs → read under deadlines
→ for a two-step question, bridge through an entity named by the pages read → write → if the
writer names a missing fact (a `MISSING:` search) or says the sources lack one (the gap check,
`pipeline/gaps.py`), one follow-up search and a rewrite → check citations.
"""

from __future__ import annotations

import asyncio

from ..errors import SleuthError, UsageError
from ..events import Notice, Planned
from ..pipeline.answer import clean
from ..pipeline.evidence import Segment
from ..pipeline.gaps import Gap, find_gap
from ..pipeline.gather import RoundLimits
from ..pipeline.write.extractive import ExtractiveWriter
from ..think.hops import SINGLE, Triage
from ..think.plan import HeuristicPlanner
from ..types import Result
from .run import Drafted, Run

MAX_QUICK_ROUNDS = 3
TRIAGE_GRACE_S = 2.0  # triage not ready this long after the first round is ignored
EXTRA_SOURCES = 4  # a hop or follow-up adds at most this many sources
EXTRA_READ_S = 4.0
MIN_FOLLOW_UP_S = 2.0  # a gap follow-up needs this much of max_runtime left to search and rewrite


async def quick(run: Run) -> Result:
    request = run.request
    triage = _start_triage(run)
    run.emit(Planned((run.question,), "single"))
    limits = RoundLimits(
        request.max_results,
        run.deadline.cap(request.read_deadline_s),
        request.settle_after,
        request.settle_wait_s,
    )
    await run.search_and_read([run.question], limits, request.seeds)
    if triage is not None:
        await _hop(run, triage)
    drafted = await run.draft()
    if run.hops == 0 and run.rounds < MAX_QUICK_ROUNDS:
        if drafted.finished.missing:
            drafted = await _follow_up(run, drafted)
        elif (gap := _gap_in(run, drafted)) is not None:
            drafted = await _gap_follow_up(run, drafted, gap)
    return run.result(drafted)


def _start_triage(run: Run) -> asyncio.Task[Triage] | None:
    hopper = run.parts.stages.hopper
    if hopper is None or not run.request.hops or run.request.schema is not None:
        return None
    return run.tasks.spawn(hopper.triage(run.question))


async def _hop(run: Run, task: asyncio.Task[Triage]) -> None:
    """Bridge a two-step question through an entity named by the pages already read."""
    triage = await _triage_result(run, task)
    hopper = run.parts.stages.hopper
    if triage.kind != "multi_hop" or hopper is None:
        return
    run.plan = "multi_hop"
    entity = await run.deadline.run(hopper.bridge(run.question, triage, run.sources()))
    first = run.vetted([triage.first], "first-step") if triage.first else []
    if entity is None and first:
        await _extra_round(run, first[0])
        entity = await run.deadline.run(hopper.bridge(run.question, triage, run.sources()))
    if entity is None or run.rounds >= MAX_QUICK_ROUNDS:
        run.emit(Notice("two-step question: the pages read do not name the intermediate entity"))
        return
    second = run.vetted([triage.fill(entity)], "second-step")
    if second:
        await _extra_round(run, second[0])
        run.hops = 1


async def _triage_result(run: Run, task: asyncio.Task[Triage]) -> Triage:
    try:
        return await asyncio.wait_for(task, TRIAGE_GRACE_S)
    except (TimeoutError, SleuthError):
        run.plan = "unavailable"
        return SINGLE


async def _extra_round(run: Run, query: str, reason: str = "", extra: int = EXTRA_SOURCES) -> None:
    """One more search of at most `extra` new sources, ranked against its own query."""
    run.rounds += 1
    run.emit(Planned((query,), run.plan, run.rounds, reason))
    run.gathering.segments.append(Segment(len(run.gathering.reads), query, extra))
    limits = RoundLimits(extra, run.deadline.cap(EXTRA_READ_S), extra, 0.5)
    await run.search_and_read([query], limits)


async def _follow_up(run: Run, first: Drafted) -> Drafted:
    """The writer named a missing fact: search it once, then rewrite; keep the first answer
    if the rewrite fails."""
    wanted = run.vetted([first.finished.missing or ""], "follow-up")
    if not wanted:
        return first
    run.emit(Notice(f"the writer needs more: searching {wanted[0]!r}"))
    return await _search_and_rewrite(run, first, wanted[0], "follow-up")


async def _search_and_rewrite(
    run: Run, first: Drafted, query: str, reason: str, extra: int = EXTRA_SOURCES
) -> Drafted:
    try:
        await _extra_round(run, query, reason, extra)
        return await run.draft(round_no=run.rounds, fallback=False)
    except (SleuthError, TimeoutError) as exc:
        if isinstance(exc, UsageError):
            raise
        run.emit(Notice(f"the {reason} failed ({exc}); keeping the first answer"))
        return first


def _gap_in(run: Run, drafted: Drafted) -> Gap | None:
    if run.request.schema is not None:
        return None
    return find_gap(
        run.question,
        clean(drafted.outcome.text)[0],
        drafted.sources,
        extractive=drafted.outcome.writer == ExtractiveWriter.name,
        confidence=drafted.finished.confidence,
    )


async def _gap_follow_up(run: Run, first: Drafted, gap: Gap) -> Drafted:
    """The answer says the sources lack a fact without naming a search: the planner makes
    one query for the gap, vetted like every model-made query; search it, then rewrite once.
    When nothing more is found the rewrite still says so (it writes from the same evidence
    and more)."""
    room = _room(run, first)
    if room < 1:
        return first
    try:
        proposed = await _gap_query(run, gap)
    except (SleuthError, TimeoutError) as exc:
        if isinstance(exc, UsageError):
            raise
        run.emit(Notice(f"the gap follow-up failed ({exc}); keeping the first answer"))
        return first
    if not proposed:
        run.emit(Notice(f"gap follow-up not made: nothing to search for it ({gap.said})"))
        return first
    wanted = run.vetted([proposed], "gap follow-up")
    if not wanted:
        return first
    run.emit(Notice(f"gap follow-up: {wanted[0]}"))
    return await _search_and_rewrite(run, first, wanted[0], "gap follow-up", room)


async def _gap_query(run: Run, gap: Gap) -> str | None:
    planner, lang = run.parts.stages.planner, run.request.search_lang
    return await run.with_model(
        lambda: planner.gap_query(run.question, gap.said, gap.terms, language=lang),
        lambda: HeuristicPlanner().gap_query(run.question, gap.said, gap.terms),
        "the gap follow-up searches the question's missing terms",
    )


def _room(run: Run, first: Drafted) -> int:
    """How many sources the gap follow-up may add within the run's budgets; 0 (with a notice
    naming the budget) when it may not search at all."""
    cap, left, meter = run.request.max_sources, run.deadline.remaining(), run.parts.meter
    room = EXTRA_SOURCES if cap is None else min(EXTRA_SOURCES, cap - len(first.sources))
    why: tuple[str, str] | None = None
    if room < 1:
        why = (f"the {cap} sources max_sources allows are kept", "max_sources")
    elif left is not None and left < MIN_FOLLOW_UP_S:
        why = (f"{max(left, 0.0):.1f} s of max_runtime left", "max_runtime")
    elif meter is not None and meter.spent_usd >= (meter.max_cost_usd or float("inf")):
        why = ("the max_cost cap is spent", "max_cost")
    if why is not None:
        run.emit(Notice(f"gap follow-up not made: {why[0]}", setting=why[1]))
        return 0
    return room
