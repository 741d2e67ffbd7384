"""One entry point for the three renderings."""

from __future__ import annotations

import json

from ..errors import UsageError
from .mermaid import render_mermaid
from .model import KnowledgeGraph
from .svg import Links, render_svg


def render_graph(graph: KnowledgeGraph, fmt: str, *, links: Links = "anchor") -> str:
    if fmt == "svg":
        return render_svg(graph, links=links)
    if fmt == "mermaid":
        return render_mermaid(graph)
    if fmt == "json":
        return json.dumps(graph.to_json(), indent=2, ensure_ascii=False) + "\n"
    raise UsageError(f"unknown graph format {fmt!r}; choose svg, json or mermaid", setting="format")
