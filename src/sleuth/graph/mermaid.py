"""The graph as Mermaid flowchart text (paste it into a Markdown file that renders Mermaid).

Labels are quoted, on one line, and every character that could end a quoted label or mean
something to Mermaid or HTML inside one is written as a Mermaid entity code (`#quot;`, `#lt;`),
so a name cannot end its label, add a node or edge, or inject markup.
"""

from __future__ import annotations

from .model import KnowledgeGraph

_CODES = {"#": "#35;", '"': "#quot;", "<": "#lt;", ">": "#gt;", "&": "#amp;", "|": "#124;",
          "`": "#96;"}  # fmt: skip


def label(text: str) -> str:
    """A quoted Mermaid label: one line, special characters as entity codes."""
    flat = " ".join(text.split())
    return '"' + "".join(_CODES.get(c, c) for c in flat if c.isprintable()) + '"'


def render_mermaid(graph: KnowledgeGraph) -> str:
    lines = ["flowchart LR"]
    if graph.empty:
        lines.append('  empty["No relations were found in the cited passages."]')
        return "\n".join(lines) + "\n"
    lines += [f"  {e.id}[{label(e.label)}]" for e in graph.entities]
    for edge in graph.edges:
        cites = "".join(f"[{n}]" for n in edge.citations)
        arrow = "-->" if edge.directed else "---"
        lines.append(f"  {edge.source} {arrow}|{label(f'{edge.relation} {cites}')}| {edge.target}")
    return "\n".join(lines) + "\n"
