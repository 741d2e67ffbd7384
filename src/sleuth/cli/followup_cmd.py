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

from .ask import RUN_SETTINGS
from .complete import session_argument
from .configmap import load, own
from .options import LLM, option, table_options
from .render import echo
from .runner import Output, research, with_app

if TYPE_CHECKING:
    from ..app.diff import SessionDiff
    from ..settings import Settings
    from ..settings.resolve import Resolved


def _resolved(resolved: Resolved | None = None) -> tuple[dict[str, Any], Output, Settings]:
    """The values set above the defaults (so a `search` from nowhere leaves the parent's
    backend), how to show the run, and the settings to run it with."""
    resolved = resolved or load()
    given = resolved.given("engine", "run", "session")
    return given, Output.of(resolved.values), resolved.settings()


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
    text, (values, output, settings) = " ".join(question), _resolved()
    research(
        lambda app, on: app.resume(session_id, text, on_event=on, **values), output, None, settings
    )


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
    text, (values, output, settings) = " ".join(question), _resolved()
    research(
        lambda app, on: app.continue_(session_id, text, on_event=on, **values),
        output,
        None,
        settings,
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
    ctx = click.get_current_context()
    resolved = load(ctx)
    values, output, settings = _resolved(resolved)
    narrate = own(ctx, resolved, "narrate")
    changes: list[SessionDiff] = []

    async def start(app: Any, on: Any) -> Any:
        result, diff = await app.rerun(session_id, on_event=on, **values)
        if diff is not None:
            changes.append(diff)
        return result

    result = research(start, output, None, settings)
    if changes and result.session_id:
        echo("", err=True)
        print_diff(changes[0], session_id, result.session_id, False, narrate, settings, err=True)


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
    resolved = load()
    changes = with_app(lambda app: _diff(app, first, second), resolved.settings())
    print_diff(changes, first, second, resolved.values["json"], narrate, resolved.settings())


async def _diff(app: Any, first: str, second: str) -> SessionDiff:
    diff: SessionDiff = app.diff(first, second)
    return diff


def print_diff(
    changes: SessionDiff,
    first: str,
    second: str,
    as_json: bool,
    with_narration: bool,
    settings: Settings,
    err: bool = False,
) -> None:
    story = with_app(lambda app: app.narrate(first, second), settings) if with_narration else None
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
