"""A small deterministic force layout (Fruchterman-Reingold) for drawing a graph as SVG.

No randomness: nodes start evenly on a circle in id order and move for a fixed number of
steps under the same forces (linked nodes attract, all nodes repel, and a weak pull to the
centre keeps unlinked parts close), so the same graph always gets the same picture. Positions are
then fitted into the drawing area.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from .model import KnowledgeGraph

STEPS = 160
EPSILON = 1e-6
GRAVITY = 0.6  # a pull to the centre, so parts of the graph that are not linked stay near


@dataclass(frozen=True, slots=True)
class Box:
    width: float
    height: float
    margin_x: float = 90.0  # room for labels on both sides
    margin_y: float = 40.0


def layout(graph: KnowledgeGraph, box: Box) -> dict[str, tuple[float, float]]:
    """Entity id -> (x, y) inside `box`."""
    ids = [e.id for e in graph.entities]
    if not ids:
        return {}
    links = [(ids.index(e.source), ids.index(e.target)) for e in graph.edges]
    points = _settle(_circle(len(ids)), links)
    return dict(zip(ids, _fit(points, box), strict=True))


def _circle(n: int) -> list[list[float]]:
    if n == 1:
        return [[0.0, 0.0]]
    return [
        [math.cos(2 * math.pi * i / n - math.pi / 2), math.sin(2 * math.pi * i / n - math.pi / 2)]
        for i in range(n)
    ]


def _settle(points: list[list[float]], links: list[tuple[int, int]]) -> list[list[float]]:
    n = len(points)
    k = math.sqrt(4.0 / n)  # ideal distance in the [-1, 1] square
    for step in range(STEPS):
        moves = [[0.0, 0.0] for _ in points]
        for i in range(n):
            for j in range(i + 1, n):
                _push(points, moves, i, j, lambda d: k * k / d)
        for i, j in links:
            _push(points, moves, i, j, lambda d: -d * d / k)
        for point, move in zip(points, moves, strict=True):
            move[0] -= GRAVITY * k * point[0]
            move[1] -= GRAVITY * k * point[1]
        heat = 0.1 * (1 - step / STEPS) + 0.002
        for point, move in zip(points, moves, strict=True):
            size = math.hypot(*move) or EPSILON
            point[0] += move[0] / size * min(size, heat)
            point[1] += move[1] / size * min(size, heat)
    return points


def _push(
    points: list[list[float]],
    moves: list[list[float]],
    i: int,
    j: int,
    force: Callable[[float], float],
) -> None:
    """Move i and j apart (a positive force) or together (a negative one)."""
    dx, dy = points[i][0] - points[j][0], points[i][1] - points[j][1]
    dist = math.hypot(dx, dy)
    if dist < EPSILON:  # on top of each other: part them the same way every time
        dx, dy, dist = EPSILON * (i - j), EPSILON, EPSILON * math.hypot(i - j, 1)
    strength = force(dist)
    moves[i][0] += dx / dist * strength
    moves[i][1] += dy / dist * strength
    moves[j][0] -= dx / dist * strength
    moves[j][1] -= dy / dist * strength


def _fit(points: list[list[float]], box: Box) -> list[tuple[float, float]]:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    span_x, span_y = (max(xs) - min(xs)) or 1.0, (max(ys) - min(ys)) or 1.0
    inner_w, inner_h = box.width - 2 * box.margin_x, box.height - 2 * box.margin_y
    out = []
    for x, y in points:
        fx = (x - min(xs)) / span_x if len(set(xs)) > 1 else 0.5
        fy = (y - min(ys)) / span_y if len(set(ys)) > 1 else 0.5
        out.append((round(box.margin_x + fx * inner_w, 1), round(box.margin_y + fy * inner_h, 1)))
    return out
