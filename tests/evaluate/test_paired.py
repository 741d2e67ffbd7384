from __future__ import annotations

import math

import pytest

from sleuth.evaluate.paired import Paired, mcnemar_exact, newcombe_paired, pair
from sleuth.evaluate.score import wilson

from .rows import row


def test_pairs_by_question_id_and_skips_unscorable_questions() -> None:
    a = [row("1", True), row("2", True), row("3", False), row("4", False), row("5", None)]
    b = [row("4", True), row("3", False), row("2", False), row("1", True), row("5", True)]
    p = pair(a, b, lambda s: s.answer_in_passages)
    assert (p.both, p.only_a, p.only_b, p.neither, p.n) == (1, 1, 1, 1, 4)
    assert p.difference == 0.0 and p.within_noise


def test_without_correlation_the_interval_is_newcombes_independent_hybrid() -> None:
    # a*d == b*c makes phi 0: the paired interval reduces to the square-root-of-sums form
    a, b, c, d = 10, 10, 5, 5
    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n
    (l1, u1), (l2, u2) = wilson(a + b, n) or (0, 0), wilson(a + c, n) or (0, 0)
    expected = (
        p1 - p2 - math.hypot(p1 - l1, u2 - p2),
        p1 - p2 + math.hypot(u1 - p1, p2 - l2),
    )
    assert newcombe_paired(a, b, c, d) == pytest.approx(expected)


def test_paired_interval_is_mirrored_when_the_arms_swap() -> None:
    low, high = newcombe_paired(12, 9, 2, 21) or (0.0, 0.0)
    swapped = newcombe_paired(12, 2, 9, 21) or (0.0, 0.0)
    assert swapped == pytest.approx((-high, -low))


@pytest.mark.parametrize(
    ("counts", "expected"),
    [  # the worked examples of Newcombe (1998), Statistics in Medicine 17:2635, method 10
        ((36, 12, 2, 0), (0.0569, 0.3404)),
        ((18, 12, 2, 18), (0.0562, 0.3290)),
        ((53, 0, 0, 1), (-0.0729, 0.0729)),
        ((0, 30, 0, 0), (0.8395, 1.0)),
    ],
)
def test_matches_newcombes_published_intervals(
    counts: tuple[int, int, int, int], expected: tuple[float, float]
) -> None:
    assert newcombe_paired(*counts) == pytest.approx(expected, abs=1e-4)


def test_a_clear_win_is_not_noise_and_a_tie_is() -> None:
    clear = Paired(both=10, only_a=12, only_b=0, neither=8)
    assert not clear.within_noise and clear.p_value < 0.001
    assert (clear.interval or (0, 0))[0] > 0
    tie = Paired(both=10, only_a=3, only_b=2, neither=15)
    assert tie.within_noise and tie.p_value == 1.0
    assert Paired(0, 0, 0, 0).interval is None and Paired(0, 0, 0, 0).within_noise


def test_exact_mcnemar_is_a_two_sided_binomial_tail() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(0, 5) == pytest.approx(2 / 32)
    assert mcnemar_exact(9, 2) == pytest.approx(2 * (1 + 11 + 55) / 2048)
