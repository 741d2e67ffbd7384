"""Compare two arms on the same questions: is a difference in a rate more than noise?

Two arms answer the same questions, so their outcomes are paired. Comparing their two Wilson
intervals would ignore that and call most real differences noise; what matters is the questions
on which they disagree. The difference gets Newcombe's interval for paired proportions (his
method 10, built from the Wilson intervals), and an exact McNemar test on the discordant pairs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .score import Score, wilson

Flag = Callable[[Score], bool | None]


@dataclass(frozen=True, slots=True)
class Paired:
    """Outcomes of arm A and arm B on the questions both could be scored on."""

    both: int  # A and B right
    only_a: int
    only_b: int
    neither: int

    @property
    def n(self) -> int:
        return self.both + self.only_a + self.only_b + self.neither

    @property
    def difference(self) -> float | None:
        """rate(A) − rate(B)."""
        return (self.only_a - self.only_b) / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return newcombe_paired(self.both, self.only_a, self.only_b, self.neither)

    @property
    def p_value(self) -> float:
        return mcnemar_exact(self.only_a, self.only_b)

    @property
    def within_noise(self) -> bool:
        """True when the 95% interval of the difference contains zero."""
        interval = self.interval
        return interval is None or interval[0] <= 0.0 <= interval[1]


def pair(a: Sequence[Score], b: Sequence[Score], flag: Flag) -> Paired:
    """Pair rows by question id; a question either arm cannot score on is left out."""
    b_by_id = {row.id: flag(row) for row in b}
    counts = {(True, True): 0, (True, False): 0, (False, True): 0, (False, False): 0}
    for row in a:
        x, y = flag(row), b_by_id.get(row.id)
        if x is not None and y is not None:
            counts[(x, y)] += 1
    return Paired(*counts.values())


def newcombe_paired(a: int, b: int, c: int, d: int) -> tuple[float, float] | None:
    """95% interval of p1 − p2 for paired counts: a both, b only first, c only second, d none."""
    n = a + b + c + d
    first, second = wilson(a + b, n), wilson(a + c, n)
    if first is None or second is None:
        return None
    p1, p2 = (a + b) / n, (a + c) / n
    (l1, u1), (l2, u2) = first, second
    phi = _phi(a, b, c, d)
    below = math.sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))
    above = math.sqrt(max(0.0, (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2))
    return max(-1.0, p1 - p2 - below), min(1.0, p1 - p2 + above)


def _phi(a: int, b: int, c: int, d: int) -> float:
    """Correlation of the paired outcomes, with Newcombe's continuity correction when positive."""
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    if not margins:
        return 0.0
    cross = float(a * d - b * c)
    if cross > 0:
        cross = max(cross - (a + b + c + d) / 2, 0.0)
    return cross / math.sqrt(margins)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p: how surprising b vs c discordant pairs are if arms are equal."""
    n = b + c
    if n == 0:
        return 1.0
    tail: float = sum(math.comb(n, k) for k in range(min(b, c) + 1)) / 2**n
    return min(1.0, 2 * tail)
