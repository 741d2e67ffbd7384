"""After the writer: clean the text, enforce citations, verify them, grade confidence.

Confidence is answerability (`answerability.py`): whether the cited evidence answers the
question, with its reasons — not how well the citations held up.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..llm.thinking import strip_reasoning_text
from ..types import (
    Citation,
    Confidence,
    ResearchRequest,
    Source,
    SourceTrust,
    Verification,
)
from . import cite
from .answerability import assess
from .links import not_citations
from .trust import source_trust

MISSING = re.compile(r"^\s*MISSING:\s*(.+?)\s*$", re.MULTILINE)
SOURCES_TAIL = re.compile(r"\n#{1,3}\s*(?:Sources|References)\s*\n(?:.*\n?)*\Z", re.IGNORECASE)
# Lines only Sleuth writes, from its own checks: a `## Citation health` heading and the
# `confidence · ...` line. A model (or a page it copies) must not be able to fake them.
TRUST_LINES = re.compile(
    r"^[ \t>*_]*(?:#{1,6}[ \t]*citation[ \t]+health\b.*"
    r"|confidence[ \t*_]*(?:·|:)[ \t*_]*(?:high|medium|low)\b.*)$\n?",
    re.IGNORECASE | re.MULTILINE,
)

# An uncited sentence that reports a citation check ("All 12 of 12 citations supported.",
# "Citations: 12/12", "Unsupported sentences: 0"): only Sleuth's check may say that, from what
# it checked; a model or a page it copies would otherwise vouch for itself (issue 24).
CHECK_CLAIM = re.compile(
    r"\b(?:\d+\s*(?:of|/|out\s+of)\s*\d+|all|every|each|no)\b[^.!?\n]{0,40}?"
    r"\b(?:citations?|cited\s+sentences?|claims?|references|sources)\b[^.!?\n]{0,60}?"
    r"\b(?:supported|verified|checked|unsupported|passed)\b"
    r"|\bunsupported\s+sentences?\s*:\s*\d+"
    r"|\bcitations?(?:\s+(?:check|checked|health))?\s*:\s*\d+\s*(?:/|of)\s*\d+",
    re.IGNORECASE,
)
SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True, slots=True)
class FinishedAnswer:
    answer: str
    citations: tuple[Citation, ...]
    verification: Verification
    confidence: Confidence
    confidence_reasons: tuple[str, ...]
    source_trust: SourceTrust
    missing: str | None  # the search the writer says would find a missing fact
    data: Any = None  # structured output, when a schema was given


def clean(text: str) -> tuple[str, str | None]:
    """Strip reasoning blocks, a model-made source list, fake trust lines, and the MISSING
    request line."""
    text = _without_check_claims(TRUST_LINES.sub("", strip_reasoning_text(text)))
    found = MISSING.search(text)
    text = MISSING.sub("", text)
    text = SOURCES_TAIL.sub("\n", text)
    return text.strip(), (found.group(1).strip() if found else None)


def _without_check_claims(text: str) -> str:
    lines = []
    for line in text.split("\n"):
        if CHECK_CLAIM.search(line):
            kept = [
                s
                for s in SENTENCE_BREAK.split(line)
                if cite.MARKER.search(s) or not CHECK_CLAIM.search(s)
            ]
            line = " ".join(kept)
        lines.append(line)
    return "\n".join(lines)


def finish_answer(raw: str, sources: Sequence[Source], request: ResearchRequest) -> FinishedAnswer:
    text, missing = clean(raw)
    text = not_citations(text, sources)
    if request.verify_cites:
        text, verification = cite.checked(text, sources, request.cite_min_recall)
    else:
        text = cite.normalize(text, [s.number for s in sources])
        verification = Verification(0, 0, (), enabled=False)
    answer = text + ("\n" + cite.health_footer(verification) if verification.unsupported else "")
    assessment = assess(request.question, text, sources, verification, missing)
    return FinishedAnswer(
        answer=answer.strip() + "\n",
        citations=cite.citations(text, sources),
        verification=verification,
        confidence=assessment.confidence,
        confidence_reasons=assessment.reasons,
        source_trust=source_trust(sources),
        missing=missing,
    )
