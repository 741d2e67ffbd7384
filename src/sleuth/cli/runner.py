"""Run research for a command: progress on stderr, save the session, print the result.

`ask`, `continue` and `rerun` all end here, so a run looks and is saved the same way whichever
command started it.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from ..app.trace import Trace
from ..errors import CitationCheckFailed, SleuthError, UsageError
from ..events import Done, Failed
from ..settings import Settings
from ..store import SessionStore, sessions_db_path
from ..store.records import SessionRecord
from ..types import ResearchRequest, Result
from .render import Progress, as_json, confidence_line, markdown


@dataclass(frozen=True, slots=True)
class Output:
    as_json: bool = False
    out: Path | None = None
    verbose: bool = False
    strict_cites: bool = False
    show_cost: bool = True


@dataclass(frozen=True, slots=True)
class Saving:
    enabled: bool = True
    tags: tuple[str, ...] = ()
    parent_id: str | None = None
    options: dict[str, Any] = field(default_factory=dict)


def run_and_print(
    settings: Settings,
    request: ResearchRequest,
    output: Output,
    saving: Saving,
    rewrite: bool = False,
) -> Result:
    """Run, save, print; raises CitationCheckFailed (exit 4) after printing under --strict-cites.

    With `rewrite`, only the writer runs, over `request.seeds` (resume)."""
    drafts = request.depth == "deep" and not output.as_json and sys.stdout.isatty()
    trace = Trace()
    result, cost = asyncio.run(
        run_with_progress(settings, request, output.verbose, rewrite, drafts, trace)
    )
    if drafts:
        click.echo("\n\n---\n")  # the drafts streamed above; the checked final answer follows
    if saving.enabled:
        result = save(result, request, saving, trace)
    show(result, output)
    if output.show_cost and cost:
        click.echo(cost, err=True)
    if result.session_id:
        click.echo(f"session {result.session_id} (sleuth resume {result.session_id})", err=True)
    if output.strict_cites and result.verification.unsupported:
        v = result.verification
        raise CitationCheckFailed(
            f"--strict-cites: {len(v.unsupported)} of {v.checked} cited sentences are not "
            "supported by their sources"
        )
    return result


async def run_with_progress(
    settings: Settings,
    request: ResearchRequest,
    verbose: bool,
    rewrite: bool = False,
    drafts: bool = False,
    trace: Trace | None = None,
) -> tuple[Result, str]:
    from ..app.assemble import assemble

    progress = Progress(verbose=verbose, drafts=sys.stdout if drafts else None)
    built = assemble(settings)
    events = built.engine.rewrite(request) if rewrite else built.engine.run(request)
    try:
        async for event in events:
            progress(event)
            if trace is not None:
                trace(event)
            if isinstance(event, Done):
                progress.clear()
                return event.result, _cost_line(built.meter)
            if isinstance(event, Failed):
                progress.clear()
                raise event.exception or SleuthError(event.error)
    finally:
        await built.aclose()
    raise SleuthError("the run ended without a result")


def _cost_line(meter: Any) -> str:
    if not meter.by_model():
        return ""
    return str(meter.summary_line())


def save(result: Result, request: ResearchRequest, saving: Saving, trace: Trace) -> Result:
    record = SessionRecord.new(
        request.question.strip(),
        result,
        options={"depth": request.depth, **saving.options},
        plan=trace.plan,
        rounds=trace.rounds,
        tags=saving.tags,
        parent_id=saving.parent_id,
    )
    SessionStore(sessions_db_path()).save(record)
    return record.result


def show(result: Result, output: Output) -> None:
    text = as_json(result) if output.as_json else markdown(result)
    click.echo(text, nl=False)
    if output.out is not None:
        write_out(output.out, text)
    click.echo(confidence_line(result), err=True)


def write_out(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--out: cannot write {path}: {exc.strerror}") from exc
