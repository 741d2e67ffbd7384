"""Calibration: for each confidence level, how many answers get it and how often they are right,
on answerable and unanswerable questions side by side (issue 10).

Right means: on an answerable question, the gold answer is in the answer text (the stated
verdict for yes/no questions); on an unanswerable one (gold pages hidden, no other page holds
the answer), the answer opens by saying the sources do not contain it. A confidence level means
something when `high` is nearly always right and almost never given to unanswerable questions.
Right counts the whole text, so each answerable level also says how often the answer's first
sentence, the one a reader sees first, holds the gold answer (yes/no questions aside), and how
often a kept passage holds it at all: a `high` answer whose kept passages hold no gold answer is
`high` on pages that cannot answer, though the question has an answer elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .report import fmt_rate, rate_json
from .score import CONFIDENCE_GRADES, Rate, Score, rate_of

ALL = "any"


@dataclass(frozen=True, slots=True)
class Cell:
    given: Rate  # answers given this level, out of all completed answers
    right: Rate  # of those, the right ones
    lead: Rate  # answerable: of those, the ones whose first sentence holds the answer
    held: Rate  # answerable: of those, the ones whose kept passages hold the answer


def cells(scores: Sequence[Score], unanswerable: bool) -> dict[str, Cell]:
    done = [s for s in scores if s.ok]
    out = {}
    for grade in (*CONFIDENCE_GRADES, ALL):
        mine = [s for s in done if grade == ALL or s.confidence == grade]
        out[grade] = Cell(
            Rate(len(mine), len(done)),
            rate_of(_right(s, unanswerable) for s in mine),
            rate_of(None if unanswerable else s.answer_in_lead for s in mine),
            rate_of(None if unanswerable else s.answer_in_passages for s in mine),
        )
    return out


def _right(score: Score, unanswerable: bool) -> bool:
    return score.declined if unanswerable else score.answer_in_text


@dataclass(frozen=True, slots=True)
class Calibration:
    answerable: dict[str, Cell]
    unanswerable: dict[str, Cell]


def calibrate(answerable: Sequence[Score], unanswerable: Sequence[Score]) -> Calibration:
    return Calibration(cells(answerable, False), cells(unanswerable, True))


def calibration_table(cal: Calibration) -> str:
    """Markdown: one row per confidence level; answerable and unanswerable side by side."""
    lines = [
        "| confidence | answerable: given | answerable: right | answerable: first sentence "
        "holds it | answerable: a kept passage holds it | unanswerable: given | unanswerable: "
        "right (says not found) |",
        "|---|---|---|---|---|---|---|",
    ]
    for grade in (*CONFIDENCE_GRADES, ALL):
        a, u = cal.answerable[grade], cal.unanswerable[grade]
        lines.append(
            f"| {grade} | {fmt_rate(a.given)} | {fmt_rate(a.right)} | {fmt_rate(a.lead)} | "
            f"{fmt_rate(a.held)} | {fmt_rate(u.given)} | {fmt_rate(u.right)} |"
        )
    return "\n".join(lines) + "\n"


def calibration_json(cal: Calibration) -> dict[str, Any]:
    def level(c: Cell, lead: bool) -> dict[str, Any]:
        out = {"given": rate_json(c.given), "right": rate_json(c.right)}
        return out | {"lead": rate_json(c.lead), "held": rate_json(c.held)} if lead else out

    return {
        "answerable": {g: level(c, True) for g, c in cal.answerable.items()},
        "unanswerable": {g: level(c, False) for g, c in cal.unanswerable.items()},
    }
