"""`sleuth ask "QUESTION"` — the default command: research a question, print a cited answer."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click

from ..errors import UsageError
from ..settings import Settings
from ..settings.values import parse_since
from ..types import ResearchRequest
from .options import (
    CommaList,
    Duration,
    cost_options,
    depth_options,
    flatten,
    llm_options,
    option,
    output_options,
    reading_options,
    search_options,
    session_options,
)
from .runner import Output, Saving, run_and_print

EXAMPLES = """
\b
Examples:
  sleuth "how long does Example Cloud keep audit logs?"
  sleuth ask "what changed in Python 3.13?" --json --out=answer.json
  sleuth ask "what does our policy say about refunds?" --search=none --include=docs/
  sleuth ask "latest CPython release" --since=30d --search=multi:duckduckgo,news
  SLEUTH_SEARXNG_URL=http://127.0.0.1:8888 sleuth ask "Q" --search=searxng --verbose
"""


@click.command(epilog=EXAMPLES)
@click.argument("question", nargs=-1, required=True)
@output_options
@search_options
@reading_options
@llm_options
@cost_options
@depth_options
@session_options
@option(
    "--max-sources",
    type=click.IntRange(1, 50),
    default=None,
    help="Most sources given to the writer (default 6, deep 15).",
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
def ask(question: tuple[str, ...], **flags: Any) -> None:
    """Research QUESTION and print an answer in which every claim cites a source it read.

    Progress goes to stderr; the answer (or --json) to stdout. Exit codes: 0 ok, 1 error,
    2 budget cap hit, 3 no sources, 4 --strict-cites failure, 5 --max-runtime reached.
    """
    settings, request = settings_and_request(" ".join(question), flags)
    run_and_print(settings, request, output_from(flags), saving_from(flags))


def settings_from(flags: dict[str, Any]) -> Settings:
    return Settings(
        search=flags["search"],
        search_fallback=flags["search_fallback"],
        since_set=flags.get("since") is not None,
        include=flatten(flags["include"]),
        base_url=flags["base_url"],
        api_key=flags["api_key"],
        model=flags["model"],
        api_format=flags["api_format"],
        no_cache=flags["no_cache"],
        pdf_max_pages=flags["pdf_max_pages"],
        browser=flags["browser"],
        browser_executable=flags["browser_executable"],
        browser_cdp_endpoint=flags["browser_cdp_endpoint"],
        plan_model=flags.get("plan_model"),
        critic_model=flags.get("critic_model"),
        max_cost=flags.get("max_cost"),
        context_tokens=flags.get("context_tokens") or 16000,
        allow_private_network=os.environ.get("SLEUTH_ALLOW_PRIVATE_NETWORK", "") in ("1", "true"),
    )


def request_from(question: str, flags: dict[str, Any]) -> ResearchRequest:
    since = flags.get("since")
    return ResearchRequest(
        question=question,
        max_sources=flags["max_sources"],
        concurrency=flags["concurrency"],
        cite_min_recall=flags["cite_min_recall"],
        verify_cites=not flags["no_verify_cites"],
        allow_domains=flatten(flags["allow_domain"]),
        deny_domains=flatten(flags["deny_domain"]),
        max_runtime_s=flags["max_runtime"],
        since=parse_since(since) if since else None,
        source_authority=flags["source_authority"],
        dedupe_threshold=None if flags["no_dedupe"] else flags["dedupe_threshold"],
        depth="deep" if flags.get("deep") is not None else "quick",
        deep_rounds=flags["deep"] if flags.get("deep") is not None else 2,
        output=flags.get("output_kind"),
        schema=load_schema(flags["schema"]) if flags.get("schema") else None,
        tldr=bool(flags.get("tldr")),
        language=flags.get("language"),
    )


def load_schema(path: Path) -> dict[str, Any]:
    from ..think.structured import check_schema

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--schema: cannot read {path}: {exc.strerror}") from exc
    try:
        schema = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--schema: {path} is not JSON ({exc.msg} at line {exc.lineno})") from exc
    return check_schema(schema)


def settings_and_request(question: str, flags: dict[str, Any]) -> tuple[Settings, ResearchRequest]:
    return settings_from(flags), request_from(question, flags)


def output_from(flags: dict[str, Any]) -> Output:
    out: Path | None = flags["out"]
    return Output(
        flags["as_json"],
        out,
        flags["verbose"],
        flags["strict_cites"],
        show_cost=not flags.get("no_cost", False),
    )


def saving_from(flags: dict[str, Any], parent_id: str | None = None) -> Saving:
    keys = ("search", "max_sources", "source_authority")
    options: dict[str, Any] = {k: flags[k] for k in keys if k in flags}
    return Saving(not flags["no_sessions"], flatten(flags["tag"]), parent_id, options)


COMMANDS = [ask]
