"""Commands that build on a saved session: `resume`, `continue`, `rerun`, and `diff`.

* resume: re-write from the saved sources only (one writer call, no search, no reading);
* continue: a full run seeded with the saved sources, which are never fetched again;
* rerun: a fresh, independent run of the same question, then the diff against the original;
* diff: how two saved runs differ; `--narrate` asks the model what changed in substance.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from typing import Any

import click

from ..app.diff import diff_sessions, render_diff
from ..app.seeds import seed_results
from ..errors import UsageError
from ..settings import Settings
from ..store import SessionStore, sessions_db_path
from ..store.records import SessionRecord
from .ask import output_from, request_from, saving_from, settings_from
from .options import (
    llm_options,
    option,
    output_options,
    reading_options,
    search_options,
    session_options,
)
from .runner import run_and_print


def _store() -> SessionStore:
    return SessionStore(sessions_db_path())


def run_options(f: Any) -> Any:
    for decorate in (output_options, search_options, reading_options, llm_options, session_options):
        f = decorate(f)
    return f


def _defaults(flags: dict[str, Any]) -> dict[str, Any]:
    """Flags `ask` has that these commands do not expose: the run defaults."""
    base = {
        "max_sources": None,
        "concurrency": 10,
        "cite_min_recall": 0.4,
        "no_verify_cites": False,
        "allow_domain": (),
        "deny_domain": (),
        "max_runtime": None,
        "strict_cites": False,
    }
    return {**base, **flags}


def _search_of(record: SessionRecord, flags: dict[str, Any]) -> dict[str, Any]:
    """Use the parent's search backend unless --search was given."""
    ctx = click.get_current_context()
    if ctx.get_parameter_source("search") is click.core.ParameterSource.DEFAULT:
        saved = record.options.get("search")
        if isinstance(saved, str) and saved:
            return {**flags, "search": saved}
    return flags


@click.command("resume")
@click.argument("session_id", metavar="ID")
@click.argument("question", nargs=-1)
@run_options
def resume(session_id: str, question: tuple[str, ...], **flags: Any) -> None:
    """Re-write a saved session's answer from its saved sources only (no search, no reading).

    \b
    Examples:
      sleuth resume 2026-05-07_1345
      sleuth resume 2026-05-07_1345 "what does it say about exports?"
    """
    _from_session(session_id, question, flags, rewrite=True)


@click.command("continue")
@click.argument("session_id", metavar="ID")
@click.argument("question", nargs=-1)
@run_options
def continue_cmd(session_id: str, question: tuple[str, ...], **flags: Any) -> None:
    """A full run seeded with a saved session's sources; known pages are not fetched again.

    \b
    Examples:
      sleuth continue 2026-05-07_1345
      sleuth continue 2026-05-07_1345 "and how does that compare with the 2023 limits?"
    """
    _from_session(session_id, question, flags, rewrite=False)


def _from_session(
    session_id: str, question: tuple[str, ...], flags: dict[str, Any], rewrite: bool
) -> None:
    """A run seeded with a saved session's sources, saved as its child with its tags."""
    record = _store().get(session_id)
    flags = _defaults(_search_of(record, flags))
    text = " ".join(question).strip() or record.question
    request = replace(request_from(text, flags), seeds=seed_results(record.result.sources))
    saving = saving_from({**flags, "tag": (*flags["tag"], *record.tags)}, parent_id=record.id)
    run_and_print(settings_from(flags), request, output_from(flags), saving, rewrite=rewrite)


@click.command("rerun")
@click.argument("session_id", metavar="ID")
@option("--narrate", is_flag=True, help="Ask the model what changed in substance.")
@run_options
def rerun(session_id: str, narrate: bool, **flags: Any) -> None:
    """Run a saved question again from scratch, save it, and show what changed.

    \b
    Examples:
      sleuth rerun 2026-05-07_1345
      sleuth rerun 2026-05-07_1345 --narrate
    """
    store = _store()
    record = store.get(session_id)
    flags = _defaults(_search_of(record, flags))
    request = request_from(record.question, flags)
    saving = saving_from({**flags, "tag": (*flags["tag"], *record.tags)}, parent_id=record.id)
    settings = replace(settings_from(flags), refresh_cache=True)  # an independent snapshot
    result = run_and_print(settings, request, output_from(flags), saving)
    if result.session_id:
        click.echo("", err=True)
        print_diff(
            store.get(record.id),
            store.get(result.session_id),
            False,
            narrate,
            settings_from(flags),
            err=True,
        )


@click.command("diff")
@click.argument("first", metavar="A")
@click.argument("second", metavar="B")
@option("--narrate", is_flag=True, help="Ask the model what changed in substance.")
@option(
    "--json",
    "as_json",
    is_flag=True,
    envvar="SLEUTH_JSON",
    help="Print the structured diff (and narration) as JSON.",
)
@llm_options
def diff(first: str, second: str, narrate: bool, as_json: bool, **flags: Any) -> None:
    """Show how run B differs from run A: metadata, sources added/removed/shared, answer lines.

    \b
    Examples:
      sleuth diff 2026-05-07 2026-06-01
      sleuth diff 2026-05-07_1345 2026-06-01_0900 --json
      sleuth diff 2026-05-07 2026-06-01 --narrate
    """
    store = _store()
    settings = Settings(
        base_url=flags["base_url"],
        api_key=flags["api_key"],
        model=flags["model"],
        api_format=flags["api_format"],
    )
    print_diff(store.get(first), store.get(second), as_json, narrate, settings)


def print_diff(
    a: SessionRecord,
    b: SessionRecord,
    as_json: bool,
    with_narration: bool,
    settings: Settings,
    err: bool = False,
) -> None:
    result = diff_sessions(a, b)
    story = _narration(a, b, settings) if with_narration else None
    if as_json:
        data = result.to_json()
        if story is not None:
            data["narration"] = story
        click.echo(json.dumps(data, ensure_ascii=False, indent=2), err=err)
        return
    click.echo(render_diff(result), nl=False, err=err)
    if story is not None:
        click.echo(f"\nwhat changed (narrated by the model)\n{story}", err=err)


def _narration(a: SessionRecord, b: SessionRecord, settings: Settings) -> str:
    from ..app.assemble import llm_settings
    from ..app.narrate import narrate
    from ..llm.factory import build_chat_model, make_meter

    config = llm_settings(settings)
    model = build_chat_model(config, make_meter(config), stage="critic")
    if model is None:
        raise UsageError(
            "--narrate needs an LLM: set SLEUTH_BASE_URL, OPENAI_API_KEY or "
            "ANTHROPIC_API_KEY (or pass --base-url)"
        )
    return asyncio.run(
        narrate(model, diff_sessions(a, b), a.result.answer or "", b.result.answer or "")
    )


COMMANDS = [resume, continue_cmd, rerun, diff]
