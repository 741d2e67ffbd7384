"""Score research results against gold answers and pages; rates carry Wilson 95% intervals.

Answers are matched the way open-domain QA benchmarks do it (lower-case, accents, punctuation
and articles removed, whitespace collapsed), as a whole-word contains-match over every alias.
Yes/no/maybe questions (PubMedQA) are scored by the verdict the answer text states.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from ..text import split_sentences
from ..types import Result
from .questions import VERDICTS, Question

Z95 = 1.959964
ARTICLES = re.compile(r"\b(?:a|an|the)\b")
NON_WORD = re.compile(r"[^\w\s]|_")
CITE_MARK = re.compile(r"\[\d+(?:\s*[,-–]\s*\d+)*\]")
HEDGES = re.compile(
    r"\b(?:may|might|unclear|inconclusive|uncertain|possibly|remains? to be|"
    r"further (?:studies|research)|not (?:clear|conclusive))\b"
)
# An answer that opens by saying the sources do not answer (any writer's wording). Kept apart
# from the engine's own detector on purpose: the bench must not grade with the code it grades.
NOT_FOUND = re.compile(
    r"\b(?:sources?|pages?|passages?|documents?|results?)\b[^.]{0,80}?"
    r"\b(?:do|does|did)(?:n['’]t| not)\b[^.]{0,60}?"
    r"\b(?:contain|say|state|answer|mention|name|give|include|provide|specify|address|cover)"
    r"|\b(?:no|none of the)\s+(?:\w+\s+){0,2}(?:sources?|pages?|passages?)\b[^.]{0,60}?"
    r"\b(?:contains?|says?|states?|answers?|mentions?|names?|gives?)\b"
    r"|\b(?:could not|couldn['’]t|cannot|can['’]t|unable to)\s+(?:find|determine|answer)\b"
    r"|\bnot (?:found|stated|mentioned|answered|given) (?:in|by) the (?:sources|pages)\b",
    re.IGNORECASE,
)
# How the confidence rule words a reason naming question terms the lead's passage lacks.
MISSING_TERM = "the cited passage does not mention"
LEADING_MARKS = re.compile(r"^(?:\s*\[\d+\])+")
OPENING_NOISE = re.compile(r"^\s*(?:#{1,6}[^\n]*\n+|\*\*TL;DR:\*\*\s*)+")
NEGATIONS = re.compile(
    r"\b(?:no|not|neither|nor|cannot|without|failed to|did not|does not|"
    r"do not|was not|were not|is not|are not|none|lack of)\b"
)


def normalize(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text)
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch)).lower()
    return " ".join(ARTICLES.sub(" ", NON_WORD.sub(" ", folded)).split())


def contains_answer(text: str, answers: Iterable[str]) -> bool:
    haystack = f" {normalize(text)} "
    return any(n and f" {n} " in haystack for n in (normalize(a) for a in answers))


def verdict(answer: str) -> str:
    """yes / no / maybe stated by an answer: its first word when it is one, else cue words.

    The cue fallback is crude on purpose (an extractive answer never says "Yes."): hedging
    words mean maybe, negations mean no, anything else yes. Its accuracy is a floor.
    """
    text = normalize(CITE_MARK.sub(" ", answer))
    first = text.split()[0] if text.split() else ""
    if first in VERDICTS:
        return first
    if HEDGES.search(text):
        return "maybe"
    return "no" if NEGATIONS.search(text) else "yes"


def first_sentence(answer: str) -> str:
    """The answer's opening sentence, past a heading or a TL;DR label, split as the pipeline
    splits (an initial or "Mrs." does not end it: "written by Joseph M. Scriven" is one
    sentence), with markers written after its period kept with it."""
    body = OPENING_NOISE.sub("", answer.lstrip()).strip()
    if not body:
        return ""
    pieces = split_sentences(body)
    first = pieces[0][1] if pieces else body
    after = LEADING_MARKS.match(pieces[1][1]) if len(pieces) > 1 else None
    return first + (f" {after.group(0).strip()}" if after else "")


def declines(answer: str) -> bool:
    """The answer's first sentence says the sources do not contain the answer."""
    return bool(NOT_FOUND.search(first_sentence(answer)))


def url_key(url: str) -> str:
    """Compare pages by host + path, ignoring scheme, `www.`, case of host and a final slash."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower().removeprefix("www.")
    path = unquote(parts.path).rstrip("/")
    return f"{host}{path}" + (f"?{parts.query}" if parts.query else "")


@dataclass(frozen=True, slots=True)
class Observation:
    """What one research run produced for one question, as the scorer needs it."""

    result: Result | None
    latency_ms: int
    error: str | None = None
    candidates: tuple[str, ...] = ()  # URLs the run tried to read (or could have)
    read: tuple[str, ...] = ()  # URLs it did read
    cut: tuple[str, ...] = ()  # URLs still loading when a read phase ended (snippet used)


@dataclass(frozen=True, slots=True)
class Score:
    """One question's row in the report."""

    id: str
    dataset: str
    question: str
    ok: bool
    error: str | None
    gold_total: int
    gold_candidates: int  # gold pages among the search candidates
    gold_read: int
    gold_kept: int  # gold pages among the sources given to the writer
    answer_in_passages: bool | None  # None for yes/no questions
    answer_in_text: bool
    verdict: str | None
    cites_checked: int
    cites_supported: int
    confidence: str | None
    latency_ms: int
    pages_read: int
    searches: int
    llm_calls: int
    cost_usd: float | None
    answer: str = field(default="", repr=False)
    plan: str | None = None  # usage.plan: single | multi_hop | unavailable
    hops: int = 0
    rounds: int = 0
    read_ms: int = 0
    reads_cut: int = 0  # pages cut off by the settle wait or the read deadline
    declined: bool = False  # the answer opens by saying the sources do not contain it
    answer_in_lead: bool | None = None  # the gold answer in the answer's first sentence
    overstated: bool = False  # graded high beside a reason naming a term the passage lacks

    @property
    def gold_any(self) -> bool | None:
        return None if not self.gold_total else self.gold_kept > 0

    @property
    def gold_all(self) -> bool | None:
        return None if not self.gold_total else self.gold_kept == self.gold_total


def overstated(confidence: str | None, reasons: Iterable[str]) -> bool:
    """Graded `high` while one of its own reasons says the cited passage lacks a question term:
    a grade that contradicts its reasons (issue 25 wants none)."""
    return confidence == "high" and any(r.startswith(MISSING_TERM) for r in reasons)


def _gold_count(gold: set[str], urls: Iterable[str]) -> int:
    return len(gold & {url_key(u) for u in urls})


def score(q: Question, obs: Observation) -> Score:
    r = obs.result
    gold = {url_key(u) for u in q.gold_urls}
    answer = (r.answer or "") if r else ""
    passages = " \n".join(p.text for s in r.sources for p in s.passages) if r else ""
    stated = verdict(answer) if q.yes_no and r else None
    return Score(
        id=q.id,
        dataset=q.dataset,
        question=q.question,
        ok=r is not None,
        error=obs.error,
        gold_total=len(gold),
        gold_candidates=_gold_count(gold, obs.candidates),
        gold_read=_gold_count(gold, obs.read),
        gold_kept=_gold_count(gold, (s.url for s in r.sources)) if r else 0,
        answer_in_passages=None if q.yes_no else contains_answer(passages, q.answers),
        answer_in_text=(stated in {a.lower() for a in q.answers})
        if q.yes_no
        else contains_answer(CITE_MARK.sub(" ", answer), q.answers),
        verdict=stated,
        cites_checked=r.verification.checked if r else 0,
        cites_supported=r.verification.supported if r else 0,
        confidence=r.confidence if r else None,
        latency_ms=obs.latency_ms,
        pages_read=r.usage.pages_read if r else 0,
        searches=r.usage.searches if r else 0,
        llm_calls=r.usage.llm_calls if r else 0,
        cost_usd=r.usage.cost_usd if r else None,
        answer=answer,
        plan=r.usage.plan if r else None,
        hops=r.usage.hops if r else 0,
        rounds=r.usage.rounds if r else 0,
        read_ms=r.usage.read_ms if r else 0,
        reads_cut=len(obs.cut),
        declined=declines(answer) if r else False,
        answer_in_lead=None
        if q.yes_no
        else contains_answer(CITE_MARK.sub(" ", first_sentence(answer)), q.answers),
        overstated=overstated(r.confidence, r.confidence_reasons) if r else False,
    )


@dataclass(frozen=True, slots=True)
class Rate:
    hits: int
    n: int

    @property
    def value(self) -> float | None:
        return self.hits / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return wilson(self.hits, self.n)


def wilson(hits: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval: honest at small n and at rates near 0 or 1."""
    if n <= 0:
        return None
    p = hits / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: Sequence[float], q: float) -> float | None:
    """Linear-interpolated percentile (q in 0..100), as numpy's default does."""
    if not values:
        return None
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    low, high = math.floor(pos), math.ceil(pos)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def rate_of(flags: Iterable[bool | None]) -> Rate:
    known = [f for f in flags if f is not None]
    return Rate(sum(known), len(known))


CONFIDENCE_GRADES = ("high", "medium", "low")


@dataclass(frozen=True, slots=True)
class Summary:
    """Every figure of one group of questions (a dataset, or all of them)."""

    n: int
    completed: Rate
    gold_any: Rate
    gold_all: Rate
    gold_pages_searched: Rate  # stage recall of gold pages: among search candidates...
    gold_pages_read: Rate  # ...among pages read...
    gold_pages_kept: Rate  # ...among sources kept for the writer
    answer_in_passages: Rate
    answer_in_text: Rate
    answer_in_lead: Rate
    cites_supported: Rate
    calibration: dict[str, Rate]  # answer_in_text per confidence grade
    declined: Rate  # answers that open by saying the sources do not contain the answer
    latency_ms: dict[str, float | None]
    pages_read_mean: float
    pages_per_s: float | None
    searches_mean: float
    llm_calls: int
    cost_usd: float | None


def summarize(scores: Sequence[Score]) -> Summary:
    latencies = [float(s.latency_ms) for s in scores]
    total_s = sum(latencies) / 1000
    pages = sum(s.pages_read for s in scores)
    costs = [s.cost_usd for s in scores if s.cost_usd is not None]
    return Summary(
        n=len(scores),
        completed=rate_of(s.ok for s in scores),
        gold_any=rate_of(s.gold_any for s in scores),
        gold_all=rate_of(s.gold_all for s in scores),
        gold_pages_searched=_pages(scores, "gold_candidates"),
        gold_pages_read=_pages(scores, "gold_read"),
        gold_pages_kept=_pages(scores, "gold_kept"),
        answer_in_passages=rate_of(s.answer_in_passages for s in scores),
        answer_in_text=rate_of(s.answer_in_text for s in scores),
        answer_in_lead=rate_of(s.answer_in_lead for s in scores),
        cites_supported=Rate(
            sum(s.cites_supported for s in scores), sum(s.cites_checked for s in scores)
        ),
        calibration={
            g: rate_of(s.answer_in_text for s in scores if s.confidence == g)
            for g in CONFIDENCE_GRADES
        },
        declined=rate_of(s.declined for s in scores if s.ok),
        latency_ms={f"p{q}": percentile(latencies, q) for q in (50, 90, 99)},
        pages_read_mean=pages / len(scores) if scores else 0.0,
        pages_per_s=pages / total_s if total_s > 0 else None,
        searches_mean=sum(s.searches for s in scores) / len(scores) if scores else 0.0,
        llm_calls=sum(s.llm_calls for s in scores),
        cost_usd=round(sum(costs), 6) if costs else None,
    )


def _pages(scores: Sequence[Score], stage: str) -> Rate:
    return Rate(sum(getattr(s, stage) for s in scores), sum(s.gold_total for s in scores))
