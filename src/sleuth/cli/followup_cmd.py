"""Commands that build on a saved session: `resume`, `continue`, `rerun`, and `diff`.

* resume: re-write from the saved sources only (one writer call, no search, no reading);
* continue: a full run seeded with the saved sources, which are never fetched again;
* rerun: a fresh, independent run of the same question, then the diff against the original;
* diff: how two saved runs differ; `--narrate` asks the model what changed in substance.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from .ask import RUN_SETTINGS
from .complete import session_argument
from .options import LLM, option, settings_values, table_options
from .render import echo
from .runner import Output, research, with_app

if TYPE_CHECKING:
    from ..app.diff import SessionDiff


def _values(flags: dict[str, Any]) -> dict[str, Any]:
    """The settings given, without a default `search`: the parent's backend is used then."""
    values = settings_values(flags)
    if click.get_current_context().get_parameter_source("search") is ParameterSource.DEFAULT:
        values.pop("search", None)
    return values


@click.command("resume")
@session_argument("session_id")
@click.argument("question", nargs=-1)
@table_options(*RUN_SETTINGS)
def resume(session_id: str, question: tuple[str, ...], **flags: Any) -> None:
    """Re-write a saved session's answer from its saved sources only (no search, no reading).

    \b
    Examples:
      sleuth resume 2026-05-07_1345
      sleuth resume 2026-05-07_1345 "what does it say about exports?"
    """
    text, values = " ".join(question), _values(flags)
    research(lambda app, on: app.resume(session_id, text, on_event=on, **values), Output.of(flags))


@click.command("continue")
@session_argument("session_id")
@click.argument("question", nargs=-1)
@table_options(*RUN_SETTINGS)
def continue_cmd(session_id: str, question: tuple[str, ...], **flags: Any) -> None:
    """A full run seeded with a saved session's sources; known pages are not fetched again.

    \b
    Examples:
      sleuth continue 2026-05-07_1345
      sleuth continue 2026-05-07_1345 "and how does that compare with the 2023 limits?"
      sleuth continue 2026-05-07_1345 --deep --max-sources=20
    """
    text, values = " ".join(question), _values(flags)
    research(
        lambda app, on: app.continue_(session_id, text, on_event=on, **values), Output.of(flags)
    )


@click.command("rerun")
@session_argument("session_id")
@option("--narrate", is_flag=True, help="Ask the model what changed in substance.")
@table_options(*RUN_SETTINGS)
def rerun(session_id: str, narrate: bool, **flags: Any) -> None:
    """Run a saved question again from scratch, save it, and show what changed.

    \b
    Examples:
      sleuth rerun 2026-05-07_1345
      sleuth rerun 2026-05-07_1345 --narrate
    """
    values = _values(flags)
    changes: list[SessionDiff] = []

    async def start(app: Any, on: Any) -> Any:
        result, diff = await app.rerun(session_id, on_event=on, **values)
        if diff is not None:
            changes.append(diff)
        return result

    result = research(start, Output.of(flags))
    if changes and result.session_id:
        echo("", err=True)
        print_diff(changes[0], session_id, result.session_id, False, narrate, values, err=True)


@click.command("diff")
@session_argument("first", "A")
@session_argument("second", "B")
@option("--narrate", is_flag=True, help="Ask the model what changed in substance.")
@table_options("json", *LLM)
def diff(first: str, second: str, narrate: bool, **flags: Any) -> None:
    """Show how run B differs from run A: metadata, sources added/removed/shared, answer lines.

    \b
    Examples:
      sleuth diff 2026-05-07 2026-06-01
      sleuth diff 2026-05-07_1345 2026-06-01_0900 --json
      sleuth diff 2026-05-07 2026-06-01 --narrate
    """
    values = {k: v for k, v in settings_values(flags).items() if k in LLM}
    changes = with_app(lambda app: _diff(app, first, second))
    print_diff(changes, first, second, bool(flags["json"]), narrate, values)


async def _diff(app: Any, first: str, second: str) -> SessionDiff:
    diff: SessionDiff = app.diff(first, second)
    return diff


def print_diff(
    changes: SessionDiff,
    first: str,
    second: str,
    as_json: bool,
    with_narration: bool,
    values: dict[str, Any],
    err: bool = False,
) -> None:
    llm_values = {k: v for k, v in values.items() if k in LLM}
    story = (
        with_app(lambda app: app.narrate(first, second, **llm_values)) if with_narration else None
    )
    if as_json:
        data = changes.to_json()
        if story is not None:
            data["narration"] = story
        echo(json.dumps(data, ensure_ascii=False, indent=2), err=err)
        return
    from ..app.diff import render_diff

    echo(render_diff(changes), nl=False, err=err)
    if story is not None:
        echo(f"\nwhat changed (narrated by the model)\n{story}", err=err)


COMMANDS = [resume, continue_cmd, rerun, diff]
