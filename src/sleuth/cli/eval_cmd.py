"""`sleuth eval QUESTIONS.jsonl` — measure Sleuth on your own questions (and, offline, corpus)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import click

from ..errors import UsageError
from ..evaluate.questions import load_questions, sample, with_gold_urls
from ..limits import DEEP_ROUNDS
from ..types import ResearchRequest
from .configmap import load
from .options import LLM, note, option, table_options
from .render import echo

EXAMPLES = """
\b
Examples:
  sleuth eval questions.jsonl --corpus docs.jsonl --out eval-results/
  sleuth eval questions.jsonl --corpus docs.jsonl --unanswerable
  sleuth eval questions.jsonl --search=searxng --limit 20 --sample 7
  sleuth eval questions.jsonl --corpus docs.jsonl --deep
\b
QUESTIONS.jsonl: one {"question", "answers": [...], "id"?, "dataset"?,
"gold_doc_ids"? | "gold_urls"?} a line. DOCS.jsonl: one {"id", "url" (http://),
"title", "text", "published"?} a line.
"""


@click.command("eval", epilog=EXAMPLES)
@click.argument("questions", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@option(
    "--corpus",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    metavar="DOCS.jsonl",
    help="Serve this corpus as an offline web and search only it.",
)
@table_options("search")
@option("--limit", type=click.IntRange(1), default=None, help="Evaluate at most N questions.")
@option(
    "--sample",
    "seed",
    type=int,
    default=None,
    metavar="SEED",
    help="Pick the questions at random with this seed (with --limit: N of them).",
)
@option(
    "--concurrency",
    type=click.IntRange(1, 32),
    default=1,
    show_default=True,
    help="Questions researched at once (1 keeps latency figures clean).",
)
@table_options("deep")
@option(
    "--depth",
    type=click.Choice(["quick", "deep"]),
    default=None,
    hidden=True,  # the word eval used before it said --deep as ask does; still understood
    help="Research depth for every question (say --deep, as ask does).",
)
@option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("eval-results"),
    show_default=True,
    help="Directory for the JSON and markdown reports.",
)
@option(
    "--unanswerable",
    is_flag=True,
    help="With --corpus: ask the questions again with their gold pages hidden (keeping those no "
    "other page answers) and print how often each confidence level is right on both.",
)
@table_options("no_cache", *LLM)
def eval_cmd(
    questions: Path,
    corpus: Path | None,
    limit: int | None,
    seed: int | None,
    concurrency: int,
    deep: int | None,
    depth: str | None,
    out: Path,
    unanswerable: bool,
    **flags: Any,
) -> None:
    """Research every question of QUESTIONS.jsonl and score the answers, sources and speed.

    Prints a table (rates with Wilson 95% intervals) and writes JSON + markdown reports with a
    row per question to --out.
    """
    # The evaluation stack (engine, corpus web) loads only when a run is asked for.
    from ..evaluate.corpus_web import load_docs
    from ..evaluate.evaluation import evaluate, write_reports

    if unanswerable and corpus is None:
        raise UsageError("--unanswerable needs --corpus: it hides pages of that corpus")
    picked = sample(load_questions(questions), limit, seed)
    docs = load_docs(corpus) if corpus is not None else None
    if docs is not None:
        picked = with_gold_urls(picked, {d.id: d.url for d in docs})
    resolved = load()
    settings = resolved.settings()
    template = _template(resolved.values["deep"], depth)
    evaluation = asyncio.run(
        evaluate(
            picked,
            settings,
            template=template,
            corpus=docs,
            concurrency=concurrency,
            progress=_progress,
            unanswerable=unanswerable,
        )
    )
    echo(evaluation.table(), nl=False)
    json_path, md_path = write_reports(evaluation, out)
    echo(f"reports: {json_path} {md_path}", err=True)


def _template(deep: int | None, depth: str | None) -> ResearchRequest:
    """Every question's depth, in ask's words: quick, or `--deep[=N]` critic rounds."""
    if depth is not None:
        note(f"--depth {depth} is {'--deep' if depth == 'deep' else 'the default'} now, as in ask")
        deep = DEEP_ROUNDS if depth == "deep" else None
    if deep is None:
        return ResearchRequest("?")
    return ResearchRequest("?", depth="deep", deep_rounds=deep)


def _progress(done: int, total: int, row: Any) -> None:
    status = "ok" if row.ok else f"failed ({row.error})"
    echo(f"[{done}/{total}] {row.id}: {status}, {row.latency_ms} ms", err=True)


COMMANDS = [eval_cmd]
