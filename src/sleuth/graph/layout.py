"""Where each entity goes in the SVG: a stress layout that fills the frame, then labels parted.

1. Distances: the number of links between two entities; entities of different parts of the
   graph (not linked at all) are set a little further apart than the farthest linked pair, so
   the parts sit side by side instead of one cluster in a corner and strays at the edges.
2. Stress majorization (SMACOF, Gansner-Koren-North 2004): positions whose distances match those
   distances as closely as possible, each pair weighted by 1/d² so neighbours count most.
3. The picture turned so its longest extent lies along the frame's width, then scaled on each
   axis to fill the frame (margins kept for labels).
4. Overlaps removed: each node with its label is a rectangle; overlapping rectangles are pushed
   apart along the axis where they overlap least, within the frame, until none overlap.

No randomness: the start is a circle in the order a breadth-first walk meets the entities, so
the same graph always gets the same picture. Pure Python: graphs here have at most a few dozen
entities (a run of 30 takes a few milliseconds per step).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from unicodedata import east_asian_width

from .model import KnowledgeGraph

STRESS_STEPS = 300
PART_STEPS = 400
EPSILON = 1e-9
CHAR_WIDTH = 7.6  # px per character of a 13 px system-ui label (measured in Chromium: 5-7.4)
WIDE_CHAR = 13.5  # a Chinese or Japanese character is as wide as the font is high
LABEL_CHARS = 28  # as svg.LABEL_CHARS: what a label shows at most
LABEL_HEIGHT = 18.0  # the label's line below the node (svg: baseline at r + 14)
GAP = 6.0  # space kept between two nodes' rectangles

Point = list[float]


@dataclass(frozen=True, slots=True)
class Box:
    width: float
    height: float
    margin_x: float = 90.0  # room for labels on both sides
    margin_y: float = 40.0


@dataclass(frozen=True, slots=True)
class Footprint:
    """What a node covers on the picture: its circle and the label below it."""

    half_width: float
    above: float  # from the centre up
    below: float  # from the centre down, the label included


def footprint(label: str, radius: float) -> Footprint:
    shown = " ".join(label.split())[:LABEL_CHARS]
    width = sum(WIDE_CHAR if east_asian_width(c) in "WF" else CHAR_WIDTH for c in shown)
    return Footprint(max(radius, width / 2), radius, radius + LABEL_HEIGHT)


def layout(
    graph: KnowledgeGraph, box: Box, radius: dict[str, float] | None = None
) -> dict[str, tuple[float, float]]:
    """Entity id -> (x, y) inside `box`, no two nodes' circles or labels overlapping."""
    ids = [e.id for e in graph.entities]
    if not ids:
        return {}
    index = {name: i for i, name in enumerate(ids)}
    links = [(index[e.source], index[e.target]) for e in graph.edges]
    order = _walk(len(ids), links)
    points = _stress(_start(order), _distances(len(ids), links))
    fitted = _fit(_turned(points, box), box)
    sizes = [footprint(e.label, (radius or {}).get(e.id, 10.0)) for e in graph.entities]
    placed = _parted(fitted, sizes, box)
    return {name: (round(x, 1), round(y, 1)) for name, (x, y) in zip(ids, placed, strict=True)}


def _neighbours(n: int, links: Sequence[tuple[int, int]]) -> list[list[int]]:
    near: list[list[int]] = [[] for _ in range(n)]
    for a, b in links:
        if a != b:
            near[a].append(b)
            near[b].append(a)
    return [sorted(set(x)) for x in near]


def _hops(start: int, near: list[list[int]]) -> list[int | None]:
    """Links from `start` to every entity (None: not linked to it at all)."""
    seen: list[int | None] = [None] * len(near)
    seen[start] = 0
    queue = deque([start])
    while queue:
        at = queue.popleft()
        for nxt in near[at]:
            if seen[nxt] is None:
                seen[nxt] = (seen[at] or 0) + 1
                queue.append(nxt)
    return seen


def _distances(n: int, links: Sequence[tuple[int, int]]) -> list[list[float]]:
    near = _neighbours(n, links)
    hops = [_hops(i, near) for i in range(n)]
    farthest = max((h for row in hops for h in row if h is not None), default=1)
    apart = float(max(farthest, 1))  # entities of different parts of the graph
    return [[float(h) if h is not None else apart for h in row] for row in hops]


def _walk(n: int, links: Sequence[tuple[int, int]]) -> list[int]:
    """Every entity once, each part of the graph breadth first from its first entity."""
    near, order, seen = _neighbours(n, links), [], [False] * n
    for first in range(n):
        if seen[first]:
            continue
        seen[first] = True
        queue = deque([first])
        while queue:
            at = queue.popleft()
            order.append(at)
            for nxt in near[at]:
                if not seen[nxt]:
                    seen[nxt] = True
                    queue.append(nxt)
    return order


def _start(order: list[int]) -> list[Point]:
    """A circle, neighbours side by side (in walk order)."""
    n = len(order)
    points: list[Point] = [[0.0, 0.0] for _ in order]
    for slot, node in enumerate(order):
        angle = 2 * math.pi * slot / max(n, 1)
        points[node] = [n * math.cos(angle) / 4, n * math.sin(angle) / 4]
    return points


def _stress(points: list[Point], d: list[list[float]]) -> list[Point]:
    """Localized SMACOF: each node moves to where its distances to the others fit best."""
    n = len(points)
    if n < 2:
        return points
    weight = [[0.0 if i == j else 1 / (d[i][j] ** 2) for j in range(n)] for i in range(n)]
    totals = [sum(row) for row in weight]
    for _ in range(STRESS_STEPS):
        for i in range(n):
            x = y = 0.0
            xi, yi = points[i]
            for j in range(n):
                if i == j:
                    continue
                dx, dy = xi - points[j][0], yi - points[j][1]
                length = math.hypot(dx, dy) or EPSILON
                pull = weight[i][j] * d[i][j] / length
                x += weight[i][j] * points[j][0] + pull * dx
                y += weight[i][j] * points[j][1] + pull * dy
            points[i] = [x / totals[i], y / totals[i]]
    return points


def _turned(points: list[Point], box: Box) -> list[Point]:
    """The points rotated so their main direction lies along the frame's longer side."""
    n = len(points)
    cx, cy = sum(p[0] for p in points) / n, sum(p[1] for p in points) / n
    sxx = sum((p[0] - cx) ** 2 for p in points)
    syy = sum((p[1] - cy) ** 2 for p in points)
    sxy = sum((p[0] - cx) * (p[1] - cy) for p in points)
    angle = 0.5 * math.atan2(2 * sxy, sxx - syy)  # the main axis's direction
    if box.height > box.width:
        angle -= math.pi / 2
    cos, sin = math.cos(-angle), math.sin(-angle)
    return [[(x - cx) * cos - (y - cy) * sin, (x - cx) * sin + (y - cy) * cos] for x, y in points]


def _fit(points: list[Point], box: Box) -> list[Point]:
    """Scaled on each axis to fill the frame inside its margins."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    inner_w, inner_h = box.width - 2 * box.margin_x, box.height - 2 * box.margin_y
    out = []
    for x, y in points:
        fx = (x - min(xs)) / (max(xs) - min(xs)) if max(xs) - min(xs) > EPSILON else 0.5
        fy = (y - min(ys)) / (max(ys) - min(ys)) if max(ys) - min(ys) > EPSILON else 0.5
        out.append([box.margin_x + fx * inner_w, box.margin_y + fy * inner_h])
    return out


def _parted(points: list[Point], sizes: list[Footprint], box: Box) -> list[Point]:
    """Nodes moved apart until no two footprints overlap (or the steps run out)."""
    n = len(points)
    for _ in range(PART_STEPS):
        moved = False
        for i in range(n):
            for j in range(i + 1, n):
                moved |= _part(points, sizes, i, j)
        for point, size in zip(points, sizes, strict=True):
            _inside(point, size, box)
        if not moved:
            break
    return points


def _part(points: list[Point], sizes: list[Footprint], i: int, j: int) -> bool:
    """Push i and j apart along the axis where their footprints overlap least."""
    (xi, yi), (xj, yj), a, b = points[i], points[j], sizes[i], sizes[j]
    over_x = a.half_width + b.half_width + GAP - abs(xi - xj)
    top, bottom = (i, j) if yi <= yj else (j, i)
    over_y = sizes[top].below + sizes[bottom].above + GAP - abs(yi - yj)
    if over_x <= 0 or over_y <= 0:
        return False
    if over_x * 0.5 < over_y:  # sideways moves are cheaper: labels are wide and short
        step = over_x / 2 + 0.5
        sign = 1.0 if (xi, i) < (xj, j) else -1.0
        points[i][0] -= sign * step
        points[j][0] += sign * step
    else:
        step = over_y / 2 + 0.5
        points[top][1] -= step
        points[bottom][1] += step
    return True


def _inside(point: Point, size: Footprint, box: Box) -> None:
    point[0] = min(max(point[0], size.half_width + 2), box.width - size.half_width - 2)
    point[1] = min(max(point[1], size.above + 2), box.height - size.below - 2)
