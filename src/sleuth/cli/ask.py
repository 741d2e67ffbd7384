"""`sleuth ask "QUESTION"` — the default command: research a question, print a cited answer."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import click

from ..assemble import Settings, assemble
from ..errors import CitationCheckFailed, SleuthError, UsageError
from ..events import Done, Failed
from ..types import ResearchRequest, Result
from .options import CommaList, Duration, flatten, llm_options, option, search_options
from .render import Progress, as_json, confidence_line, markdown

EXAMPLES = """
\b
Examples:
  sleuth "how long does Example Cloud keep audit logs?"
  sleuth ask "what changed in Python 3.13?" --json --out=answer.json
  sleuth ask "what does our policy say about refunds?" --search=none --include=docs/
  SLEUTH_SEARXNG_URL=http://127.0.0.1:8888 sleuth ask "Q" --search=searxng --verbose
"""


@click.command(epilog=EXAMPLES)
@click.argument("question", nargs=-1, required=True)
@option(
    "--json",
    "as_json_flag",
    is_flag=True,
    envvar="SLEUTH_JSON",
    help="Print the result as JSON (the DESIGN §1 shape).",
)
@option(
    "--out",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    default=None,
    help="Also write the final output to this file.",
)
@option("--verbose", "-v", is_flag=True, help="Print every run event on stderr.")
@search_options
@llm_options
@option(
    "--max-sources",
    type=click.IntRange(1, 50),
    default=6,
    show_default=True,
    help="Most sources given to the writer.",
)
@option(
    "--concurrency",
    type=click.IntRange(1, 64),
    default=10,
    show_default=True,
    help="Pages read at once.",
)
@option(
    "--max-runtime",
    type=Duration(),
    default=None,
    metavar="DURATION",
    help="Stop the whole run after this long (e.g. 90s, 10m); exit 5.",
)
@option("--no-cache", is_flag=True, help="Do not read or write the page cache.")
@option(
    "--cite-min-recall",
    type=click.FloatRange(0.0, 1.0),
    default=0.4,
    show_default=True,
    help="Share of a sentence's content words its cited source must contain.",
)
@option("--strict-cites", is_flag=True, help="Exit 4 when any citation is unsupported.")
@option("--no-verify-cites", is_flag=True, help="Skip the lexical citation check.")
@option(
    "--allow-domain",
    type=CommaList(),
    multiple=True,
    metavar="DOMAIN[,DOMAIN]",
    help="Only read pages from these domains (and their subdomains).",
)
@option(
    "--deny-domain",
    type=CommaList(),
    multiple=True,
    metavar="DOMAIN[,DOMAIN]",
    help="Never read pages from these domains (and their subdomains).",
)
def ask(
    question: tuple[str, ...], as_json_flag: bool, out: Path | None, verbose: bool, **flags: Any
) -> None:
    """Research QUESTION and print an answer in which every claim cites a source it read.

    Progress goes to stderr; the answer (or --json) to stdout. Exit codes: 0 ok, 1 error,
    2 budget cap hit, 3 no sources, 4 --strict-cites failure, 5 --max-runtime reached.
    """
    text = " ".join(question)
    settings, request = settings_and_request(text, flags)
    result = asyncio.run(run_with_progress(settings, request, verbose))
    output = as_json(result) if as_json_flag else markdown(result)
    click.echo(output, nl=False)
    if out is not None:
        write_out(out, output)
    click.echo(confidence_line(result), err=True)
    if flags["strict_cites"] and result.verification.unsupported:
        raise CitationCheckFailed(
            f"--strict-cites: {len(result.verification.unsupported)} of "
            f"{result.verification.checked} cited sentences are not supported by their sources"
        )


def settings_and_request(question: str, flags: dict[str, Any]) -> tuple[Settings, ResearchRequest]:
    settings = Settings(
        search=flags["search"],
        search_fallback=flags["search_fallback"],
        include=flatten(flags["include"]),
        base_url=flags["base_url"],
        api_key=flags["api_key"],
        model=flags["model"],
        api_format=flags["api_format"],
        no_cache=flags["no_cache"],
        allow_private_network=os.environ.get("SLEUTH_ALLOW_PRIVATE_NETWORK", "") in ("1", "true"),
    )
    request = ResearchRequest(
        question=question,
        max_sources=flags["max_sources"],
        concurrency=flags["concurrency"],
        cite_min_recall=flags["cite_min_recall"],
        verify_cites=not flags["no_verify_cites"],
        allow_domains=flatten(flags["allow_domain"]),
        deny_domains=flatten(flags["deny_domain"]),
        max_runtime_s=flags["max_runtime"],
    )
    return settings, request


async def run_with_progress(settings: Settings, request: ResearchRequest, verbose: bool) -> Result:
    progress = Progress(verbose=verbose)
    built = assemble(settings)
    try:
        async for event in built.engine.run(request):
            progress(event)
            if isinstance(event, Done):
                progress.clear()
                return event.result
            if isinstance(event, Failed):
                progress.clear()
                raise event.exception or SleuthError(event.error)
    finally:
        await built.aclose()
    raise SleuthError("the run ended without a result")


def write_out(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--out: cannot write {path}: {exc.strerror}") from exc


def stdout_is_tty() -> bool:
    return sys.stdout.isatty()


COMMANDS = [ask]
