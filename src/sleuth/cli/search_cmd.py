"""`sleuth search "Q"` — preview what a search backend returns (no reading, no writing)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import asdict
from typing import Any

import click

from ..ports import SearchQuery
from ..settings import Settings
from ..types import SearchResult
from .options import CommaList, flatten, option

EXAMPLES = """
\b
Examples:
  sleuth search "rust async runtime"
  sleuth search "nginx 502" --search=stackexchange --json
  sleuth search "refund policy" --search=local --include=docs/
"""


@click.command("search", epilog=EXAMPLES)
@click.argument("query", nargs=-1, required=True)
@option(
    "--search",
    default="duckduckgo",
    show_default=True,
    metavar="SPEC",
    help="Search backend: a name, or multi:a,b,c.",
)
@option(
    "--include",
    type=CommaList(),
    multiple=True,
    metavar="PATH[,PATH]",
    help="Files for the local backend.",
)
@option(
    "--limit", type=click.IntRange(1, 100), default=10, show_default=True, help="How many results."
)
@option("--json", "as_json", is_flag=True, envvar="SLEUTH_JSON", help="Print results as JSON.")
def search(
    query: tuple[str, ...], search: str, include: tuple[Any, ...], limit: int, as_json: bool
) -> None:
    """Print the raw results of one search, without reading any page."""
    text = " ".join(query).strip()
    if not text:
        raise click.UsageError("the query is empty")
    settings = Settings(search=search, include=flatten(include))
    results = asyncio.run(run_search(settings, text, limit))
    if as_json:
        click.echo(json.dumps([result_json(r) for r in results], ensure_ascii=False, indent=2))
        return
    if not results:
        click.echo("no results", err=True)
    for r in results:
        date = f" · {r.published}" if r.published else ""
        click.echo(f"{r.rank:>2}. {r.title}\n    {r.url}{date}\n    {r.snippet[:200]}")


async def run_search(settings: Settings, text: str, limit: int) -> list[SearchResult]:
    from ..app.assemble import backend_settings
    from ..search.spec import build_search

    backend = build_search(settings.search, backend_settings(settings))
    try:
        return await backend.search(SearchQuery(text, limit))
    finally:
        close = getattr(backend, "aclose", None)
        if close is not None:
            await close()


def result_json(r: SearchResult) -> dict[str, Any]:
    data = asdict(r)
    data.pop("page", None)
    return data


COMMANDS = [search]
