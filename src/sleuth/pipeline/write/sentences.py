"""Sentences of the kept passages, scored for how well they answer the question.

The score rewards the question's rarer words in the sentence (and, at half weight, in the
sentences around it and the page title — "It was released in 2003" answers through its
neighbour), the relevance of the passage it comes from, the answer shape the question asks
for (a duration for "how long", a year for "when", a name for "who"), and new information:
a sentence made only of the question's words restates it instead of answering.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ...text import content_tokens, paragraph_spans, split_sentences, stem
from ...types import Source

MIN_WORDS, MAX_WORDS = 5, 80
MIN_LETTERS = 0.5  # share of letters: "The 12.9-kilometre (8 mi) bridge opened in 1997." passes
CONTEXT_WEIGHT = 0.5
# Footnote-style markers inside page text ("[12]", "[citation needed]") must not pass as ours.
FOREIGN_MARKER = re.compile(r"\s*\[(?:\d+(?:\s*[-–,;]\s*\d+)*|[a-z ]{3,25})\]")
MARKUP_LINE = re.compile(r"^\s*(?:#{1,6}\s|\||```|<)")
LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


@dataclass(frozen=True, slots=True)
class Candidate:
    number: int  # the source it comes from
    passage_rank: int
    offset: int  # position in the source text, for reading order
    text: str
    tokens: frozenset[str]  # stemmed content words
    context: frozenset[str]  # its neighbour sentences' and the page title's, minus its own
    relevance: float  # the passage's BM25 score relative to the best passage of the run


def stems(text: str) -> frozenset[str]:
    return frozenset(stem(t) for t in content_tokens(text))


def sentences(sources: Sequence[Source]) -> list[Candidate]:
    best = max((p.score for s in sources for p in s.passages), default=0.0) or 1.0
    out: list[Candidate] = []
    for source in sources:
        title = stems(source.title)
        for rank, passage in enumerate(source.passages):
            relevance = max(0.0, passage.score) / best
            for start, end in paragraph_spans(passage.text):
                line = " ".join(passage.text[start:end].split())
                if MARKUP_LINE.match(line):
                    continue
                for cand in _line(line, passage.start + start, title):
                    out.append(
                        Candidate(
                            source.number, rank, cand[0], cand[1], cand[2], cand[3], relevance
                        )
                    )
    return out


def _line(
    line: str, start: int, title: frozenset[str]
) -> list[tuple[int, str, frozenset[str], frozenset[str]]]:
    parts = [
        (offset, " ".join(FOREIGN_MARKER.sub("", raw).split()))
        for offset, raw in split_sentences(LIST_MARK.sub("", line))
    ]
    tokens = [stems(sentence) for _, sentence in parts]
    out = []
    for i, (offset, sentence) in enumerate(parts):
        if not _usable(sentence):
            continue
        # Both neighbours: "X (born 1992) is an actor. He is known for playing Ricky..."
        neighbours = (tokens[i - 1] if i else frozenset()) | (
            tokens[i + 1] if i + 1 < len(tokens) else frozenset()
        )
        out.append((start + offset, sentence, tokens[i], (neighbours | title) - tokens[i]))
    return out


def _usable(sentence: str) -> bool:
    """A declarative sentence of a sensible length: mostly letters, ends like a sentence."""
    n = len(sentence.split())
    letters = sum(ch.isalpha() for ch in sentence)
    stripped = sentence.rstrip("\"'”’)]")
    return (
        MIN_WORDS <= n <= MAX_WORDS
        and letters >= MIN_LETTERS * len(sentence)
        and stripped.endswith((".", "!"))
        and "``" not in sentence
    )


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
        re.compile(r"^\s*where\b|\bwhere (?:is|are|was|were|did|does|do)\b", re.I),
        re.compile(r"\b(?:in|at|near|from|on) (?:the )?[A-Z][a-z]+"),
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


def score(cands: Sequence[Candidate], question: str) -> list[float]:
    wanted = stems(question)
    shape = answer_shape(question)
    df = Counter(t for c in cands for t in c.tokens | c.context)
    n = max(1, len(cands))

    def idf(t: str) -> float:
        return math.log(1 + n / df[t])

    total = sum(idf(t) for t in wanted if df[t]) or 1.0
    out = []
    for c in cands:
        own = wanted & c.tokens
        near = (wanted & c.context) - own
        hit = (sum(idf(t) for t in own) + CONTEXT_WEIGHT * sum(idf(t) for t in near)) / total
        novelty = len(c.tokens - wanted) / max(1, len(c.tokens))
        value = hit * (0.4 + min(novelty, 0.6)) * (0.35 + c.relevance)
        if shape is not None:
            value *= 2.0 if _has_shape(shape, c.text, question) else 0.6
        if INDIRECT_QUESTION.search(c.text):
            value *= 0.3  # "we wonder how long ...": it asks, it does not answer
        out.append(value)
    return out


def _has_shape(shape: re.Pattern[str], sentence: str, question: str) -> bool:
    """The expected answer shape, not counting text the question already contains."""
    return any(m.group(0).lower() not in question.lower() for m in shape.finditer(sentence))
