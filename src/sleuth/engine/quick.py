"""Quick mode (DESIGN §2): search the question while a triage of it runs → read under deadlines
→ for a two-step question, bridge through an entity named by the pages read → write → if the
writer names a missing fact, one follow-up search and a rewrite → check citations.
"""

from __future__ import annotations

import asyncio

from ..errors import SleuthError, UsageError
from ..events import Notice, Planned
from ..pipeline.evidence import Segment
from ..pipeline.gather import RoundLimits
from ..think.hops import SINGLE, Triage
from ..types import Result
from .run import Drafted, Run

MAX_QUICK_ROUNDS = 3
TRIAGE_GRACE_S = 2.0  # triage not ready this long after the first round is ignored
EXTRA_SOURCES = 4  # a hop or follow-up adds at most this many sources
EXTRA_READ_S = 4.0


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
    if run.hops == 0 and drafted.finished.missing and run.rounds < MAX_QUICK_ROUNDS:
        drafted = await _follow_up(run, drafted)
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


async def _extra_round(run: Run, query: str) -> None:
    """One more search of at most EXTRA_SOURCES new sources, ranked against its own query."""
    run.rounds += 1
    run.emit(Planned((query,), run.plan, run.rounds))
    run.gathering.segments.append(Segment(len(run.gathering.reads), query, EXTRA_SOURCES))
    limits = RoundLimits(EXTRA_SOURCES, run.deadline.cap(EXTRA_READ_S), EXTRA_SOURCES, 0.5)
    await run.search_and_read([query], limits)


async def _follow_up(run: Run, first: Drafted) -> Drafted:
    """The writer named a missing fact: search it once, then rewrite; keep the first answer
    if the rewrite fails."""
    wanted = run.vetted([first.finished.missing or ""], "follow-up")
    if not wanted:
        return first
    run.emit(Notice(f"the writer needs more: searching {wanted[0]!r}"))
    try:
        await _extra_round(run, wanted[0])
        return await run.draft(round_no=run.rounds, fallback=False)
    except (SleuthError, TimeoutError) as exc:
        if isinstance(exc, UsageError):
            raise
        run.emit(Notice(f"the follow-up failed ({exc}); keeping the first answer"))
        return first
