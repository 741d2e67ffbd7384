"""After the writer: clean the text, enforce citations, verify them, grade confidence."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from . import cite
from .types import (
    Citation,
    Confidence,
    ResearchRequest,
    Source,
    SourceTrust,
    Verification,
)

REASONING = re.compile(r"<(think|thinking|reasoning)>.*?(?:</\1>|\Z)", re.DOTALL | re.IGNORECASE)
MISSING = re.compile(r"^\s*MISSING:\s*(.+?)\s*$", re.MULTILINE)
SOURCES_TAIL = re.compile(r"\n#{1,3}\s*(?:Sources|References)\s*\n(?:.*\n?)*\Z", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class FinishedAnswer:
    answer: str
    citations: tuple[Citation, ...]
    verification: Verification
    confidence: Confidence
    source_trust: SourceTrust
    missing: str | None  # the search the writer says would find a missing fact


def clean(text: str) -> tuple[str, str | None]:
    """Strip reasoning blocks, a model-made source list, and the MISSING request line."""
    text = REASONING.sub("", text)
    found = MISSING.search(text)
    text = MISSING.sub("", text)
    text = SOURCES_TAIL.sub("\n", text)
    return text.strip(), (found.group(1).strip() if found else None)


def finish_answer(raw: str, sources: Sequence[Source], request: ResearchRequest) -> FinishedAnswer:
    text, missing = clean(raw)
    text = cite.normalize(text, (s.number for s in sources))
    if request.verify_cites:
        verification = cite.verify(text, sources, request.cite_min_recall)
    else:
        verification = Verification(0, 0, (), enabled=False)
    answer = text + ("\n" + cite.health_footer(verification) if verification.unsupported else "")
    return FinishedAnswer(
        answer=answer.strip() + "\n",
        citations=cite.citations(text, sources),
        verification=verification,
        confidence=cite.confidence(sources, verification),
        source_trust=trust_of(sources),
        missing=missing,
    )


def trust_of(sources: Sequence[Source]) -> SourceTrust:
    counts = {tier: 0 for tier in ("primary", "reputable", "unknown", "low")}
    for source in sources:
        counts[source.authority] += 1
    good = counts["primary"] + counts["reputable"]
    if counts["low"] * 2 > len(sources):
        label = "low"
    elif good * 2 >= len(sources) and counts["low"] == 0:
        label = "high"
    else:
        label = "mixed"
    return SourceTrust(label, counts)  # type: ignore[arg-type]
