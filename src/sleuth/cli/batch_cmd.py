"""`sleuth batch questions.jsonl`: answer many questions, one JSON line each, into a JSONL file
of results — resumable (ids already answered in the output are skipped, and failed ones too
unless `--retry-failed`), every failure recorded with its reason, none stopping the batch.
With `--queue` the questions go to the PostgreSQL task queue instead, for `sleuth worker`
processes on any machine to answer."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from ..errors import UsageError
from ..limits import deep_value
from ..settings.table import SETTINGS
from .batch_progress import Bar, summary, to_do
from .configmap import load, typed
from .options import LLM, READING, SEARCH, option, table_options

if TYPE_CHECKING:
    from ..settings import Settings

RUN = (
    *SEARCH, *READING, *LLM, "plan_model", "critic_model", "context_tokens", "max_cost",
    "require_llm", "output", "schema", "tldr", "images", "language", "no_sessions", "tag",
    "max_sources", "max_runtime", "cite_min_recall", "no_verify_cites", "allow_domain",
    "deny_domain",
)  # fmt: skip
EXAMPLES = """
\b
Examples:
  sleuth batch questions.jsonl --out results.jsonl
  sleuth batch questions.jsonl --depth deep --concurrency 2 --search=searxng
  sleuth batch questions.jsonl --retry-failed     # run the failed lines again
  SLEUTH_DATABASE_URL=postgresql://sleuth@db/sleuth sleuth batch questions.jsonl --queue

\b
A line: {"question": "...", "id": "q1", "depth": "deep", "max_sources": 8, "since": "30d"}
A record: {"id", "line", "question", "result": {...}} or {..., "error": {"kind", "message"}}
"""


@click.command("batch", epilog=EXAMPLES)
@click.argument("questions", type=click.Path(dir_okay=False, path_type=Path), required=False)
@option(
    "--depth",
    type=click.Choice(["quick", "deep"]),
    default="quick",
    show_default=True,
    help="Depth of every question without its own `depth`.",
)
@option(
    "--concurrency",
    "batch_concurrency",
    type=click.IntRange(1, 64),
    default=4,
    show_default=True,
    help="Questions researched at once.",
)
@option(
    "--out",
    "out",
    type=click.Path(dir_okay=False, path_type=Path, allow_dash=True),
    default=None,
    help="Results file (JSONL; default QUESTIONS.results.jsonl; '-' for stdout, "
    "not resumable). Ids answered in it are skipped; failed ones too unless --retry-failed.",
)
@option(
    "--retry-failed",
    is_flag=True,
    help="Run again the lines whose record in the results is a failure (their old records "
    "are replaced).",
)
@option(
    "--queue",
    is_flag=True,
    help="Enqueue the questions on the PostgreSQL task queue (SLEUTH_DATABASE_URL) for "
    "`sleuth worker` processes, follow the batch and write its results.",
)
@option("--no-wait", is_flag=True, help="With --queue: print the batch id and leave.")
@option(
    "--follow",
    metavar="BATCH_ID",
    default=None,
    help="Follow a queued batch (from --queue --no-wait) and write its results.",
)
@table_options(*RUN)
def batch(
    questions: Path | None,
    depth: str,
    batch_concurrency: int,
    out: Path | None,
    queue: bool,
    no_wait: bool,
    follow: str | None,
    retry_failed: bool,
    **flags: Any,
) -> None:
    """Research every question of QUESTIONS (JSONL) and write one record per line.

    Progress goes to stderr (a bar in a terminal). Exit 0 when every question has an answer,
    1 when any line stands failed — this run's failures and earlier ones not retried (each
    failure is in the results with its reason)."""
    ctx = click.get_current_context()
    resolved = load(ctx)
    values = resolved.given("engine", "run", "session")
    if ctx.get_parameter_source("depth") is ParameterSource.COMMANDLINE:
        values["deep"] = deep_value(depth)  # else a `deep` from the config or env stands
    if questions is None and follow is None:
        raise UsageError("give the QUESTIONS file (or --follow BATCH_ID)")
    target = _target(questions, out, follow)
    if queue or follow:
        from .batch_queue import queued

        given = _queued(ctx, values)
        failed = queued(
            questions, given, target, follow=follow, wait=not no_wait, retry_failed=retry_failed
        )
    else:
        assert questions is not None
        settings = resolved.settings()
        failed = _run_local(questions, values, target, batch_concurrency, retry_failed, settings)
    if failed:
        sys.exit(1)


def _queued(ctx: click.Context, values: dict[str, Any]) -> dict[str, Any]:
    """What a queued batch carries: its run options, and any engine setting typed as a flag
    (refused: the workers choose their search backend and model). An engine setting from
    the config file or a variable is this shell's, not the batch's: it is left out."""
    typed_engine = {k for k in typed(ctx) if SETTINGS[k].target == "engine"}
    return {k: v for k, v in values.items() if SETTINGS[k].target != "engine" or k in typed_engine}


def _target(questions: Path | None, out: Path | None, follow: str | None) -> Path | None:
    """Where results go: the path given, QUESTIONS.results.jsonl, or None for stdout."""
    if out is not None and str(out) == "-":
        return None
    if out is None:
        if questions is None:
            return Path(f"{follow}.results.jsonl")
        out = questions.with_name(questions.stem + ".results.jsonl")
    if questions is not None and out.resolve() == questions.resolve():
        raise UsageError("--out: the results file cannot be the questions file")
    return out


def _run_local(
    questions: Path,
    values: dict[str, Any],
    target: Path | None,
    workers: int,
    retry: bool,
    settings: Settings,
) -> int:
    from ..app.application import Sleuth
    from ..app.batch import Tally, run_local
    from ..app.batchfile import ResultsFile

    results = ResultsFile(target, sys.stdout)
    tally = Tally()
    todo = to_do(questions, results, tally, retry)
    bar = Bar(sys.stderr, len(todo))

    def sink(record: dict[str, Any]) -> None:
        results.write(record)
        bar.step(tally)

    async def go() -> None:
        async with Sleuth(settings) as app:
            await run_local(app, todo, values, sink, concurrency=workers, tally=tally)

    try:
        bar.step(tally)
        asyncio.run(go())
    finally:
        results.close()
        bar.close()
    summary(tally, target)
    return tally.unanswered


COMMANDS = [batch]
