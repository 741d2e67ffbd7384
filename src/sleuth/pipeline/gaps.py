"""The gap check (DESIGN §2): an answer that says the sources lack a needed fact without
naming a search (no `MISSING:` line) still earns the run's one follow-up search.

A model's answer states the gap in its own words ("The sources do not state the year it
opened."), found by the same pattern that grades a not-found answer low. The extractive writer
cannot say what it lacks, so for it the gap is the answerability check's finding: key terms of
the question that no kept page mentions, when the answer is graded `low` (it says the sources do
not answer, or its evidence falls short). A `medium` answer that merely lacks a word of the
question ("(case 17)") is not worth a search round on every run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..types import Confidence, Source
from .answerability import absent_terms, gap_of, stated_gap
from .asks import asks


@dataclass(frozen=True, slots=True)
class Gap:
    said: str  # the answer's sentence, or the check's finding, that names what is missing
    terms: tuple[str, ...]  # the question's key terms no kept page mentions


def find_gap(
    question: str,
    answer: str,
    sources: Sequence[Source],
    *,
    extractive: bool,
    confidence: Confidence,
) -> Gap | None:
    """The gap `answer` leaves, or None. `answer` is the writer's cleaned text (no citation
    health footer, no `MISSING:` line)."""
    wanted = asks(question)
    if not extractive:
        said = stated_gap(answer)
        return Gap(said, tuple(absent_terms(wanted, sources))) if said else None
    if confidence != "low":
        return None
    terms = tuple(absent_terms(wanted, sources))
    return Gap(gap_of(wanted, terms), terms) if terms else None
