"""`sleuth ask --interactive`: steer a run from the terminal, stage by stage, as the web UI does.

Clarifying questions (with a model), the plan to keep, drop from or add to, a first round, more
rounds with your suggestions, then the writing request and the cited report. Prompts and
progress go to stderr, your replies come from stdin and the report goes to stdout like any
answer. Each stage is saved as a session, so a run stopped at a prompt reopens in `sleuth ui`
at the stage it reached.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import click

from ..app.steer import MAX_QUERIES, STYLE_PARTS, writing_request
from ..errors import UsageError
from ..events import Event
from ..types import Result
from .render import echo
from .runner import Output, research

if TYPE_CHECKING:
    from ..app.application import Sleuth
    from ..app.steer import Steering
    from ..settings import Settings

NOT_WITH = ("deep", "schema")  # the person steers the rounds; the report is the output


def refuse_conflicts(values: dict[str, Any]) -> None:
    for name in NOT_WITH:
        if values.get(name) is not None:
            raise UsageError(
                f"--interactive steers the rounds itself; drop --{name}", setting="interactive"
            )


def reply(text: str) -> str:
    """One line from the person ("" for Enter); prompts go to stderr, stdout keeps the answer."""
    answer: str = click.prompt(text, default="", show_default=False, err=True)
    return " ".join(answer.split())


def steer_in_terminal(
    question: str, values: dict[str, Any], output: Output, settings: Settings | None = None
) -> Result:
    """Run the steered stages, asking at each; the report is printed as `ask` prints one."""
    refuse_conflicts(values)
    reached: list[Steering] = []

    async def run(app: Sleuth, on_event: Callable[[Event], None]) -> Result:
        state = await app.steer(question, **values)
        reached[:] = [state]
        if state.stage == "clarify":
            state = await app.steer_plan(state, [_answer(q) for q in state.questions])
            reached[:] = [state]
        plan = _plan(state.plan)
        if tuple(plan) != state.plan:
            state = app.steer_edit(state, plan)
            reached[:] = [state]
        state = await app.steer_explore(state, on_event=on_event)
        reached[:] = [state]
        seen: set[str] = set()
        while True:
            seen = _round_summary(state, seen)
            suggestions = _searches("Another round: a search to add (Enter to write the report)")
            if not suggestions:
                break
            state = await app.steer_explore(state, suggestions, on_event)
            reached[:] = [state]
        state = await app.steer_write(state, _style(), on_event)
        reached[:] = [state]
        if state.result is None:  # write always returns the report
            raise UsageError("the report was not written", setting="interactive")
        return replace(state.result, usage=app.steer_spent(state))

    try:
        return research(run, output, live=False, settings=settings)
    except click.Abort:
        if reached and reached[-1].session_id:
            saved = reached[-1].session_id
            echo(f"\nsleuth: stopped; the run is saved as session {saved} at its "
                 f"{reached[-1].stage} stage (open it with `sleuth ui`)", err=True)  # fmt: skip
        raise


def _answer(question: str) -> str:
    return reply(f"{question} (Enter to skip)")


def _plan(proposed: tuple[str, ...]) -> list[str]:
    """The proposed searches, minus those dropped, plus those added; never empty."""
    while True:
        echo("Plan: the first round searches", err=True)
        for n, query in enumerate(proposed, 1):
            echo(f"  {n}. {query}", err=True)
        kept = _drop(proposed, reply("Drop searches by number (e.g. 1,3; Enter keeps all)"))
        if kept is None:
            continue
        plan = [*kept, *_searches("A search to add (Enter when done)")][:MAX_QUERIES]
        if plan:
            return plan
        echo("sleuth: the plan needs at least one search", err=True)


def _drop(proposed: tuple[str, ...], said: str) -> list[str] | None:
    """The plan without the numbered searches; None (ask again) when a number is not one."""
    dropped: set[int] = set()
    for part in said.replace(",", " ").split():
        if not part.isdigit() or not 1 <= int(part) <= len(proposed):
            echo(f"sleuth: {part!r} is not a search number (1-{len(proposed)})", err=True)
            return None
        dropped.add(int(part))
    return [q for n, q in enumerate(proposed, 1) if n not in dropped]


def _searches(text: str) -> list[str]:
    found: list[str] = []
    while len(found) < MAX_QUERIES and (query := reply(text)):
        found.append(query)  # cut to length where the plan and rounds are made (app/steer.py)
    return found


def _round_summary(state: Steering, seen: set[str]) -> set[str]:
    """The sources this round added (by address), to decide on another round."""
    new = [s for s in state.sources if s.url not in seen]
    echo(f"Round {len(state.rounds)}: {len(new)} new sources, {len(state.sources)} in all",
         err=True)  # fmt: skip
    for source in new:
        echo(f"  [{source.number}] {source.title or source.url}", err=True)
    return seen | {s.url for s in state.sources}


def _style() -> str:
    """The writing request, worded as the web UI words it."""
    return writing_request({k: reply(f"{k.capitalize()} of the report (Enter to skip)")
                            for k in STYLE_PARTS})  # fmt: skip
