"""The graph as one SVG image: no script, no external asset, every text escaped.

Entity names and sentences come from web pages and model output, so every piece of text is
escaped for XML (and characters XML forbids are removed): a page cannot inject markup, script
or an event handler. Each edge is a link, to `#cite-n` (the answer page's source list) or to
the cited source's own address, and carries its relation and supporting sentence as a tooltip.
"""

from __future__ import annotations

import html
import math
import re
from typing import Literal

from .cooccur import FALLBACK_RELATION
from .layout import Box, layout
from .model import Edge, Entity, KnowledgeGraph

Links = Literal["anchor", "source"]
WIDTH, HEIGHT = 960, 640
NODE_COLORS = {"name": "#3b6fe0", "date": "#c77700", "quantity": "#23895a"}
LABEL_CHARS = 28
RELATION_CHARS = 20
# Characters XML 1.0 does not allow at all (a page's stray control byte would break the file).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
_SAFE_URL = re.compile(r"^https?://", re.IGNORECASE)


def esc(text: str) -> str:
    """Text made safe for SVG/XML content and double- or single-quoted attributes."""
    return html.escape(_NOT_XML.sub("", text), quote=True)


def short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def render_svg(
    graph: KnowledgeGraph, *, links: Links = "anchor", prefix: str = "kg", anchor: str = "cite-"
) -> str:
    """The whole SVG document (also fit to put inline in an HTML page); with `links="anchor"`
    each edge links to `#{anchor}{n}`, the page's element for citation n."""
    box = Box(WIDTH, HEIGHT)
    title = f"Knowledge graph: {graph.question}"
    # role="group", not "img": an image's children are presentational, and the edges are links.
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="group" class="{prefix}-graph" '
        f'aria-labelledby="{prefix}-title {prefix}-desc" '
        'font-family="system-ui, sans-serif" font-size="13">\n'
        f'<title id="{prefix}-title">{esc(title)}</title>\n'
        f'<desc id="{prefix}-desc">{esc(_description(graph))}</desc>\n'
    )
    if graph.empty:
        return head + _empty(box) + "</svg>\n"
    radius = {e.id: _radius(e) for e in graph.entities}
    at = layout(graph, box, radius)
    parts = [head, _defs(prefix), f'<g class="{prefix}-edges">\n']
    parts += [
        _edge(graph, edge, at, radius, _href(edge, links, anchor), prefix) for edge in graph.edges
    ]
    parts.append(f'</g>\n<g class="{prefix}-nodes">\n')
    parts += [_node(entity, at[entity.id], radius[entity.id], prefix) for entity in graph.entities]
    parts.append("</g>\n</svg>\n")
    return "".join(parts)


def _description(graph: KnowledgeGraph) -> str:
    how = "extracted by the model" if graph.method == "llm" else "named together"
    return (
        f"{len(graph.entities)} entities and {len(graph.edges)} relations {how} in the cited "
        "passages; each relation links to the citation that supports it."
    )


def _empty(box: Box) -> str:
    return (
        f'<text x="{box.width / 2}" y="{box.height / 2}" text-anchor="middle" '
        'fill="currentColor">No relations were found in the cited passages.</text>\n'
    )


def _defs(prefix: str) -> str:
    return (
        f'<defs><marker id="{prefix}-arrow" viewBox="0 0 10 10" refX="10" refY="5" '
        'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
        '<path d="M0,0 L10,5 L0,10 z" fill="currentColor"/></marker></defs>\n'
    )


def _radius(entity: Entity) -> float:
    return round(6 + math.sqrt(min(entity.mentions, 16)) * 2.5, 1)


def _edge(
    graph: KnowledgeGraph,
    edge: Edge,
    at: dict[str, tuple[float, float]],
    radius: dict[str, float],
    href: str,
    prefix: str,
) -> str:
    (x1, y1), (x2, y2) = at[edge.source], at[edge.target]
    x2s, y2s = _shorten(x1, y1, x2, y2, radius[edge.target] + 2)
    a, b = graph.entity(edge.source).label, graph.entity(edge.target).label
    cites = "".join(f"[{n}]" for n in edge.citations)
    first = edge.evidence[0]
    tip = f"{a} — {edge.relation} — {b} {cites}\n[{first.citation}] {first.sentence}"
    # A bare co-occurrence says nothing a label could add; only its citation is written.
    said = "" if edge.relation == FALLBACK_RELATION else short(edge.relation, RELATION_CHARS) + " "
    label = f"{said}{cites}"
    arrow = f' marker-end="url(#{prefix}-arrow)"' if edge.directed else ""
    mx, my = (x1 + x2) / 2, (y1 + y2) / 2
    line = f'x1="{x1}" y1="{y1}" x2="{x2s}" y2="{y2s}"'
    return (
        f'<a class="{prefix}-edge" href="{esc(href)}" '
        f'data-citations="{" ".join(map(str, edge.citations))}" '
        f'aria-label="{esc(f"{label}: {a} {edge.relation} {b}")}">'
        f"<title>{esc(tip)}</title>"
        f'<line {line} stroke="currentColor" stroke-opacity="0.5" stroke-width="1.6"{arrow}/>'
        f'<line {line} stroke="transparent" stroke-width="14" pointer-events="stroke"/>'
        f'<text x="{mx:.1f}" y="{my - 4:.1f}" text-anchor="middle" font-size="11" '
        f'fill="currentColor" stroke="Canvas" stroke-width="3" paint-order="stroke">'
        f"{esc(label)}</text></a>\n"
    )


def _href(edge: Edge, links: Links, anchor: str) -> str:
    first = edge.evidence[0]
    if links == "source" and _SAFE_URL.match(first.url):
        return first.url
    return f"#{anchor}{first.citation}"


def _shorten(x1: float, y1: float, x2: float, y2: float, by: float) -> tuple[float, float]:
    """The end of a line moved back by `by` so an arrow head stops at the node's rim."""
    length = math.hypot(x2 - x1, y2 - y1)
    if length <= by:
        return x2, y2
    f = (length - by) / length
    return round(x1 + (x2 - x1) * f, 1), round(y1 + (y2 - y1) * f, 1)


def _node(entity: Entity, at: tuple[float, float], r: float, prefix: str) -> str:
    x, y = at
    color = NODE_COLORS[entity.kind]
    return (
        f'<g class="{prefix}-node {prefix}-{entity.kind}" id="{prefix}-{entity.id}">'
        f"<title>{esc(f'{entity.label} ({entity.kind}, named in {entity.mentions} sentences)')}"
        f'</title><circle cx="{x}" cy="{y}" r="{r}" fill="{color}"/>'
        f'<text x="{x}" y="{y + r + 14:.1f}" text-anchor="middle" fill="currentColor" '
        f'stroke="Canvas" stroke-width="3" paint-order="stroke">'
        f"{esc(short(entity.label, LABEL_CHARS))}</text></g>\n"
    )
