"""`sleuth graph ID`: the knowledge graph of a saved run as SVG, JSON or Mermaid."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ..graph import FORMATS, METHODS
from .complete import session_argument
from .configmap import load
from .options import LLM, option, table_options
from .render import echo
from .runner import with_app, write_out

_SUFFIXES = {".svg": "svg", ".json": "json", ".mmd": "mermaid", ".mermaid": "mermaid"}


@click.command("graph")
@session_argument("session_id")
@option("--format", "fmt", type=click.Choice(FORMATS), help="Default: from --out, else svg.")
@option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write to this file.")
@option(
    "--method",
    type=click.Choice(METHODS),
    default="auto",
    show_default=True,
    help="llm: the model extracts relations (checked against the cited passages); "
    "cooccurrence: names found together in a cited sentence; auto: llm when one is configured.",
)
@table_options(*LLM)
def graph(session_id: str, fmt: str | None, out: Path | None, method: str, **flags: Any) -> None:
    """Draw the key entities of a saved run's cited passages and how they relate; every edge
    names the citation and sentence that support it (in SVG, each edge links to its source).

    \b
    Examples:
      sleuth graph last > graph.svg
      sleuth graph 2026-05-07_1345 --format=mermaid
      sleuth graph 2026-05-07_1345 --out=graph.json --method=cooccurrence
    """
    from ..graph.render import render_graph

    chosen = fmt or (_SUFFIXES.get(out.suffix.lower()) if out else None) or "svg"
    resolved = load()
    drawn = with_app(lambda app: app.graph(session_id, method=method), resolved.settings())
    text = render_graph(drawn, chosen, links="source")
    for note in drawn.notes:
        echo(f"note: {note}", err=True)
    if out is None:
        echo(text, nl=False)
        return
    write_out(out, text)
    echo(str(out))


COMMANDS = [graph]
