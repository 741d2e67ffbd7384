"""The graph's layout fills the frame and no two nodes' circles or labels overlap (issue 27:
one cluster crammed in a corner, labels on top of each other, an empty middle)."""

from __future__ import annotations

import pytest

from sleuth.graph.layout import Box, Footprint, footprint, layout
from sleuth.graph.model import Edge, Entity, Evidence, KnowledgeGraph
from sleuth.graph.render import render_graph
from sleuth.graph.svg import HEIGHT, WIDTH, _radius

NAMES = [
    "Example Cloud", "Audit logs", "90 days", "Enterprise plan", "365 days", "JSON lines",
    "object storage", "Security settings", "Standard plan", "2024", "NIST SP 800-92",
    "log management", "Google", "Stack Overflow", "asyncio", "Python 3.13", "CPython",
    "Wikipedia", "SQLite WAL", "PostgreSQL",
]  # fmt: skip
# One dense cluster of ten, then four small parts: the shape of a real co-occurrence graph.
CLUSTER = [(1, 2), (1, 3), (2, 3), (1, 4), (4, 5), (2, 6), (6, 7), (1, 8), (8, 4), (1, 9), (9, 3),
           (2, 10), (3, 5), (1, 7), (2, 8)]  # fmt: skip
PARTS = [(11, 12), (13, 14), (15, 16), (16, 17), (15, 17), (18, 19), (20, 19)]


def graph(
    names: list[str] = NAMES, pairs: list[tuple[int, int]] = CLUSTER + PARTS
) -> KnowledgeGraph:
    entities = tuple(
        Entity(f"e{i + 1}", name, "name", max(1, 10 - i)) for i, name in enumerate(names)
    )
    edges = tuple(Edge(f"e{a}", f"e{b}", "appears with", (Evidence(1, "s"),)) for a, b in pairs)
    return KnowledgeGraph("q", "cooccurrence", entities, edges)


def placed(g: KnowledgeGraph) -> tuple[dict[str, tuple[float, float]], dict[str, Footprint]]:
    radius = {e.id: _radius(e) for e in g.entities}
    at = layout(g, Box(WIDTH, HEIGHT), radius)
    return at, {e.id: footprint(e.label, radius[e.id]) for e in g.entities}


def overlapping(at: dict[str, tuple[float, float]], size: dict[str, Footprint]) -> list[str]:
    ids, found = list(at), []
    for i, a in enumerate(ids):
        for b in ids[i + 1 :]:
            (xa, ya), (xb, yb) = at[a], at[b]
            top, bottom = (a, b) if ya <= yb else (b, a)
            wide = size[a].half_width + size[b].half_width > abs(xa - xb)
            tall = size[top].below + size[bottom].above > abs(ya - yb)
            if wide and tall:
                found.append(f"{a}/{b}")
    return found


def test_the_nodes_spread_over_the_frame_and_the_main_cluster_is_not_crammed() -> None:
    at, _ = placed(graph())
    inner_w, inner_h = WIDTH - 180, HEIGHT - 80
    cells = {(min(int((x - 90) / (inner_w / 3)), 2), min(int((y - 40) / (inner_h / 3)), 2))
             for x, y in at.values()}  # fmt: skip
    assert len(cells) >= 8 and (1, 1) in cells, sorted(cells)  # the middle is not empty
    cluster = [at[f"e{i}"] for i in range(1, 11)]
    xs, ys = [p[0] for p in cluster], [p[1] for p in cluster]
    share = (max(xs) - min(xs)) * (max(ys) - min(ys)) / (inner_w * inner_h)
    assert share >= 0.2, f"the main cluster covers {share:.0%} of the frame"


@pytest.mark.parametrize(
    "names",
    [NAMES, [f"{n} and a much longer label" for n in NAMES], ["审计日志保留期限", *NAMES[1:]]],
)
def test_no_two_nodes_or_labels_overlap_and_all_stay_inside(names: list[str]) -> None:
    g = graph(names)
    at, size = placed(g)
    assert overlapping(at, size) == []
    for name, (x, y) in at.items():
        s = size[name]
        assert s.half_width <= x <= WIDTH - s.half_width and s.above <= y <= HEIGHT - s.below


def test_a_crowd_of_unlinked_entities_is_parted_too() -> None:
    g = graph([f"Entity number {i}" for i in range(24)], [(1, 2)])
    at, size = placed(g)
    assert overlapping(at, size) == []


def test_the_same_graph_gets_the_same_picture() -> None:
    assert render_graph(graph(), "svg") == render_graph(graph(), "svg")
    assert layout(graph(NAMES[:1], []), Box(WIDTH, HEIGHT)) == {"e1": (480.0, 320.0)}
