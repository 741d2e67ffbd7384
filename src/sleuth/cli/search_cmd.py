"""`sleuth search "Q"` — preview what a search backend returns (no reading, no writing)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

import click

from ..types import SearchResult
from .configmap import load, own
from .options import option, table_options
from .render import echo
from .runner import with_app

EXAMPLES = """
\b
Examples:
  sleuth search "rust async runtime"
  sleuth search "nginx 502" --search=stackexchange --json
  sleuth search "Energiewende Kosten" --search-lang=de
  sleuth search "refund policy" --search=local --include=docs/
"""


@click.command("search", epilog=EXAMPLES)
@click.argument("query", nargs=-1, required=True)
@table_options("search", "search_lang", "include")
@option(
    "--limit", type=click.IntRange(1, 100), default=10, show_default=True, help="How many results."
)
@table_options("json")
def search(query: tuple[str, ...], limit: int, **flags: Any) -> None:
    """Print the raw results of one search, without reading any page."""
    text = " ".join(query).strip()
    if not text:
        raise click.UsageError("the query is empty")
    ctx = click.get_current_context()
    resolved = load(ctx)
    values, limit = resolved.given("engine", "run"), own(ctx, resolved, "limit")
    results = with_app(lambda app: app.search(text, limit=limit, **values), resolved.settings())
    if resolved.values["json"]:
        echo(json.dumps([result_json(r) for r in results], ensure_ascii=False, indent=2))
        return
    if not results:
        echo("no results", err=True)
    for r in results:
        date = f" · {r.published}" if r.published else ""
        echo(f"{r.rank:>2}. {r.title}\n    {r.url}{date}\n    {r.snippet[:200]}")


def result_json(r: SearchResult) -> dict[str, Any]:
    data = asdict(r)
    data.pop("page", None)
    data.pop("scraped", None)  # a whole page: not part of a preview
    return data


COMMANDS = [search]
