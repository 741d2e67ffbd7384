"""The built-in extractive writer: an answer made only of sentences the sources contain.

It scores every sentence of the kept passages against the question (content-token overlap
weighted by rarity, plus the passage's BM25 rank), drops near-repeats, and writes the best ones
with their source number. Because every sentence is copied from the source it cites, its
citations are supported by construction — it cannot invent a claim.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

from ..ports import WriteTask
from ..text import content_tokens, paragraph_spans, split_sentences, stem
from ..types import Source

NOTICE = (
    "no LLM configured: extractive answer from the sources "
    "(set SLEUTH_BASE_URL, OPENAI_API_KEY or ANTHROPIC_API_KEY for a written one)"
)
MIN_WORDS, MAX_WORDS = 6, 80
REPEAT_JACCARD = 0.6


@dataclass(frozen=True, slots=True)
class Candidate:
    number: int
    passage_rank: int
    offset: int  # position in the source text, for reading order
    text: str
    tokens: frozenset[str]


# Footnote-style markers inside page text ("[12]", "[citation needed]") must not pass as ours.
FOREIGN_MARKER = re.compile(r"\s*\[(?:\d+(?:\s*[-–,;]\s*\d+)*|[a-z ]{3,25})\]")
MARKUP_LINE = re.compile(r"^\s*(?:#{1,6}\s|\||```|<)")


def _sentences(sources: Sequence[Source]) -> list[Candidate]:
    out: list[Candidate] = []
    for source in sources:
        for rank, passage in enumerate(source.passages):
            for start, end in paragraph_spans(passage.text):
                line = " ".join(passage.text[start:end].split())
                if not MARKUP_LINE.match(line):
                    out.extend(_line_candidates(source.number, rank, passage.start + start, line))
    return out


def _line_candidates(number: int, rank: int, start: int, line: str) -> list[Candidate]:
    out = []
    body = re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", line)
    for offset, sentence in split_sentences(body):
        sentence = " ".join(FOREIGN_MARKER.sub("", sentence).split())
        n = len(sentence.split())
        if MIN_WORDS <= n <= MAX_WORDS and _looks_like_prose(sentence) and "``" not in sentence:
            out.append(
                Candidate(
                    number,
                    rank,
                    start + offset,
                    sentence,
                    frozenset(stem(t) for t in content_tokens(sentence)),
                )
            )
    return out


def _looks_like_prose(sentence: str) -> bool:
    """A declarative sentence: mostly letters, ends like a sentence, and is not a question."""
    letters = sum(ch.isalpha() for ch in sentence)
    stripped = sentence.rstrip("\"'”’)]")
    return letters >= 0.6 * len(sentence) and stripped.endswith((".", "!"))


UNITS = r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|decades?|centuries)"
MONTHS = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December)"
)
# Expected answer shapes by question form: a sentence holding one is far likelier to answer.
ANSWER_TYPES: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = (
    (
        re.compile(r"\bhow (?:long|old)\b", re.I),
        re.compile(
            rf"\b\d[\d,.]*\s*(?:-\s*)?{UNITS}\b|\b(?:one|two|three|four|five|six|seven|"
            rf"eight|nine|ten|twelve|thirty|ninety)\s+{UNITS}\b",
            re.I,
        ),
    ),
    (
        re.compile(r"\b(?:when|what (?:year|date|time)|which year|since when)\b", re.I),
        re.compile(rf"\b(?:1[0-9]{{3}}|20[0-9]{{2}})\b|\b{MONTHS}\s+\d{{1,2}}\b"),
    ),
    (
        re.compile(
            r"\bhow (?:many|much|far|big|often|tall|large)\b|\bwhat (?:percentage|number)", re.I
        ),
        re.compile(r"\d"),
    ),
    (
        re.compile(r"^\s*who\b|\bwho (?:is|was|were|founded|wrote|invented|created)\b", re.I),
        re.compile(r"\b[A-Z][a-z]+(?:\s+(?:[A-Z]\.\s*)?[A-Z][a-z]+)+\b"),
    ),
)


INDIRECT_QUESTION = re.compile(
    r"\b(?:how (?:long|many|much|do|does|can|to)|whether|wonder(?:s|ed|ing)?|asks?|asked)\b", re.I
)


def answer_shape(question: str) -> re.Pattern[str] | None:
    for asks, shape in ANSWER_TYPES:
        if asks.search(question):
            return shape
    return None


def _score(cands: Sequence[Candidate], question: str) -> list[float]:
    """Relevance to the question, preferring sentences that add something to it.

    A sentence made only of the question's own words restates it ("users ask how long logs are
    kept"); an answer usually adds new words — and the shape the question asks for: a duration
    for "how long", a year for "when", a name for "who".
    """
    wanted = {stem(t) for t in content_tokens(question)}
    shape = answer_shape(question)
    df = Counter(t for c in cands for t in c.tokens)
    n = max(1, len(cands))
    scores = []
    for c in cands:
        shared = wanted & c.tokens
        hit = sum(math.log(1 + n / df[t]) for t in shared)
        coverage = len(shared) / max(1, len(wanted))
        novelty = len(c.tokens - wanted) / max(1, len(c.tokens))
        score = hit * (0.5 + coverage) * (0.4 + min(novelty, 0.6))
        if shape is not None:
            score *= 2.0 if _has_shape(shape, c.text, question) else 0.6
        if INDIRECT_QUESTION.search(c.text):
            score *= 0.3  # "we wonder how long ...": it asks, it does not answer
        scores.append(score + 0.3 / (1 + c.passage_rank))
    return scores


def _has_shape(shape: re.Pattern[str], sentence: str, question: str) -> bool:
    """The expected answer shape, not counting text the question already contains."""
    return any(m.group(0).lower() not in question.lower() for m in shape.finditer(sentence))


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def select(sources: Sequence[Source], question: str, limit: int) -> list[Candidate]:
    """Best-supported sentences, no near-repeats; the best first, the rest in reading order."""
    cands = _sentences(sources)
    ranked = sorted(zip(_score(cands, question), cands, strict=True), key=lambda x: -x[0])
    picked: list[Candidate] = []
    for score, cand in ranked:
        if len(picked) >= limit or score <= 0.3:
            break
        if any(_jaccard(cand.tokens, p.tokens) >= REPEAT_JACCARD for p in picked):
            continue
        picked.append(cand)
    if not picked and cands:  # nothing matched the question: still say what the sources say
        picked = [cands[0]]
    head, rest = picked[:1], sorted(picked[1:], key=lambda c: (c.number, c.offset))
    return head + rest


def cite_sentence(c: Candidate) -> str:
    match = re.search(r"([.!?][\"'”’)]*)$", c.text)
    if match:
        return f"{c.text[: match.start()]} [{c.number}]{match.group(1)}"
    return f"{c.text} [{c.number}]."


def paragraphs(chosen: Sequence[Candidate]) -> str:
    """The lead sentence alone, then one paragraph per source, so the answer reads in order."""
    if not chosen:
        return ""
    blocks = [cite_sentence(chosen[0])]
    current = -1
    for cand in chosen[1:]:
        if cand.number != current:
            blocks.append("")
            current = cand.number
        blocks[-1] = (blocks[-1] + " " + cite_sentence(cand)).strip()
    return "\n\n".join(blocks)


class ExtractiveWriter:
    """Writer with no model: quotes the best-supported sentences, each cited."""

    name = "extractive"
    notice = NOTICE

    def __init__(self, sentences: int = 5) -> None:
        self.sentences = sentences

    async def write(self, task: WriteTask) -> AsyncIterator[str]:
        if task.tldr:
            lead = select(task.sources, task.question, 2)
            yield "**TL;DR:** " + " ".join(cite_sentence(c) for c in lead) + "\n\n"
        if task.output == "report":
            for chunk in self._report(task):
                yield chunk
            return
        yield paragraphs(select(task.sources, task.question, self.sentences))

    def _report(self, task: WriteTask) -> list[str]:
        """An overview, then one section per aspect (sub-query) or, without aspects, per source."""
        overview = select(task.sources, task.question, 3)
        parts = ["## Overview\n\n" + paragraphs(overview) + "\n"]
        used = {c.text for c in overview}
        sections: list[tuple[str, list[Source]]] = (
            [(aspect, list(task.sources)) for aspect in task.aspects]
            if task.aspects
            else [(s.title.strip() or s.url, [s]) for s in task.sources]
        )
        for heading, sources in sections:
            query = heading if task.aspects else task.question
            own = [c for c in select(sources, query, 3) if c.text not in used]
            used.update(c.text for c in own)
            if own:
                parts.append(f"\n## {heading[:1].upper()}{heading[1:]}\n\n{paragraphs(own)}\n")
        return parts
