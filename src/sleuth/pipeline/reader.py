"""The reader: a small learned model of "this sentence answers the question" (issue 25).

Two heads, one active. Both are logistic models over features the extractive writer already
measures — the question's subject terms in the sentence and around it, the asked-for answer
shape, the page's title, the passage's relevance, where the sentence stands in its page and in
the run's word-overlap ranking. With the `reader` extra installed, the second head adds the
score of a cross-encoder (MiniLM-L6 fine-tuned on (question, sentence) pairs, int8 ONNX, shipped
in the package: `crossenc.py`), which reads the sentence against the question instead of
counting shared words. Weights, thresholds and training figures are in `reader.json`, written
by `python -m bench.reader train` (docs/reader.md is the model card).

`Reader.read` gives each of a run's sentences the probability that it holds the answer, and
puts first the lead a `Ranker` picks when `reader.json` has one (a conditional logit fitted
within each question; the shipped reader has none, docs/reader.md's seventh round says why),
else the likeliest; the others follow, likeliest first. Whether the
sources answer at all is a question about the run as a whole (`Answers`): the lead's
probability, and whether a kept page is about the question's subject and the lead covers its
terms. It decides whether the extractive writer answers or says the sources
do not. Whether the lead's own probability reaches `answers_at` decides whether any writer's
lead claim can be graded `high` at all.
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from typing import Any, Protocol

from ..types import Source
from .asks import Asks, asks
from .sentences import Scored, jaccard, score, sentences, stems, title_cover

PRONOUN_START = re.compile(r"^(?:It|He|She|They|This|These|Its|His|Her|Their)\b")
NAMES = re.compile(r"(?<!^)\b[A-Z][\w'’-]+")
YEAR = re.compile(r"\b(?:1[0-9]{3}|20[0-9]{2})\b")
KINDS = ("a duration", "a date", "a number", "a place", "a name")
WEIGHTS = "reader.json"
READ = 40  # sentences the reader reads, best word overlap first
ENCODED = 6  # of them, the cross-encoder reads these: ~13 ms each here; 16 lifted top-1 0.01

FEATURES = (
    "near_coverage",
    "own_coverage",
    "title_cover",
    "subject_cover",
    "typed",
    "untyped",
    "relevance",
    "novelty",
    "passage_rank",
    "page_position",
    "length",
    "search_rank",
    "lexical_share",
    "lexical_rank",
    "pronoun_start",
    "new_names",
    "year",
    *(f"typed_{k.split()[-1]}" for k in KINDS),
)


def features(item: Scored, wanted: Asks, subject: float, best: float, rank: int) -> list[float]:
    """The lexical head's inputs for one scored sentence, in the order of FEATURES."""
    c = item.cand
    terms = set(wanted.subject or wanted.terms)
    novelty = len(c.tokens - set(wanted.terms)) / max(1, len(c.tokens))
    asked = {m.lower() for m in NAMES.findall(wanted.question)}
    said = {m.lower() for m in NAMES.findall(c.text)}
    return [
        item.coverage,
        len(c.tokens & terms) / max(1, len(terms)),
        item.title,
        subject,
        1.0 if item.typed else 0.0,
        1.0 if item.typed is False else 0.0,
        c.relevance,
        min(novelty, 1.0),
        1.0 / (1 + c.passage_rank),
        1.0 / (1 + c.offset / 500),
        min(len(c.text.split()) / 40, 2.0),
        1.0 / c.number,
        item.value / best if best > 0 else 0.0,
        1.0 / (1 + rank),
        1.0 if PRONOUN_START.match(c.text) else 0.0,
        min(len(said - asked) / 5, 1.0),
        1.0 if YEAR.search(c.text) else 0.0,
        *(1.0 if item.typed and wanted.kind == kind else 0.0 for kind in KINDS),
    ]


ANSWERS = ("best_logit", "title_cover", "best_coverage")


def logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def run_features(best: float, subject: float, coverage: float) -> list[float]:
    """The inputs of `Answers`, in the order of ANSWERS: the likeliest sentence's probability
    (as a logit), how far a kept page is about the question's subject by its title
    (`sentences.about_subject`), and that sentence's coverage of the terms (with its
    neighbours)."""
    return [logit(best), subject, coverage]


@dataclass(frozen=True, slots=True)
class Answers:
    """Whether a run's sources answer the question: a logistic model over ANSWERS, fitted on
    the training questions (answerable ones against their unanswerable variants). The sources
    answer from `at`, which declines a set share of the unanswerable training questions.

    The best probability alone separates them less well: an unanswerable question's distractor
    pages often hold a sentence the reader likes, but rarely a page titled after the question's
    subject (those were the hidden gold pages)."""

    weights: tuple[float, ...]
    bias: float
    at: float

    def probability(self, x: Sequence[float]) -> float:
        return _sigmoid(self.bias + sum(w * v for w, v in zip(self.weights, x, strict=True)))

    def to_json(self) -> dict[str, Any]:
        return {"weights": list(self.weights), "bias": self.bias, "at": self.at}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Answers:
        return cls(tuple(float(w) for w in data["weights"]), float(data["bias"]), float(data["at"]))


RANKS = ("cross_encoder", "encoded")  # the ranker's inputs after FEATURES, with an encoder


@dataclass(frozen=True, slots=True)
class Ranker:
    """Which of a run's sentences leads: a conditional logit, a softmax over one question's
    sentences fitted to put its mass on those holding the answer (`bench.reader`). Its inputs
    are the lexical features and, with an encoder, the cross-encoder's score (0 where it did
    not read the sentence) and whether it read it (RANKS). Fitted within each question, it
    spends nothing on what every sentence of a question shares (how well the pages name the
    subject) nor on calibration, so it picks the lead better than the head's probability;
    only the head's probabilities are calibrated, and they still decide whether the run
    answers and whether the lead can be `high`."""

    weights: tuple[float, ...]

    def scores(self, read: Inputs, encoded: bool) -> list[float]:
        return [
            sum(w * v for w, v in zip(self.weights, x, strict=True)) for x in ranking(read, encoded)
        ]

    def to_json(self) -> dict[str, Any]:
        return {"weights": list(self.weights)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Ranker:
        return cls(tuple(float(w) for w in data["weights"]))


def ranking(read: Inputs, encoded: bool) -> list[list[float]]:
    """The ranker's inputs for each sentence: its lexical features and, for the cross-encoder
    head, the encoder's score where it read the sentence (else 0) and whether it did."""
    if not encoded:
        return [list(x) for x in read.xs]
    return [
        [*x, read.encoded[i], 1.0] if i < len(read.encoded) else [*x, 0.0, 0.0]
        for i, x in enumerate(read.xs)
    ]


def order(read: Inputs, found: Sequence[float], ranker: Ranker | None, encoded: bool) -> list[int]:
    """The reading order of a run's sentences (indices into `read`): the lead first — the
    ranker's choice, or without one the likeliest — then the others, likeliest first."""
    by_chance = sorted(range(len(found)), key=lambda i: -found[i])
    if ranker is None or not by_chance:
        return by_chance
    scores = ranker.scores(read, encoded)
    lead = max(range(len(scores)), key=scores.__getitem__)
    return [lead, *(i for i in by_chance if i != lead)]


@dataclass(frozen=True, slots=True)
class Head:
    """A logistic model: weights over its inputs and a bias, with the lead's threshold, the
    run's answering decision over its probabilities, and the ranker that picks the lead."""

    weights: tuple[float, ...]
    bias: float
    answers_at: float  # the lead is taken to answer from this probability (`high` needs it)
    answers: Answers | None = None  # whether the run answers; without it, the best >= answers_at
    ranker: Ranker | None = None  # orders the sentences; without it, by probability

    def probability(self, x: Sequence[float]) -> float:
        return _sigmoid(self.bias + sum(w * v for w, v in zip(self.weights, x, strict=True)))

    def answered(self, best: float, subject: float, coverage: float) -> bool:
        if self.answers is None:
            return best >= self.answers_at
        chance = self.answers.probability(run_features(best, subject, coverage))
        return chance >= self.answers.at

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "weights": list(self.weights),
            "bias": self.bias,
            "answers_at": self.answers_at,
        }
        if self.answers is not None:
            data["answers"] = self.answers.to_json()
        if self.ranker is not None:
            data["ranker"] = self.ranker.to_json()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Head:
        answers = data.get("answers")
        ranker = data.get("ranker")
        return cls(
            tuple(float(w) for w in data["weights"]),
            float(data["bias"]),
            float(data["answers_at"]),
            Answers.from_json(answers) if answers else None,
            Ranker.from_json(ranker) if ranker else None,
        )


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


class Encoder(Protocol):
    """Scores (question, sentence on its page) pairs: higher is likelier to answer."""

    def score(self, question: str, texts: Sequence[str], titles: Sequence[str]) -> list[float]: ...


@dataclass(frozen=True, slots=True)
class Reader:
    """The lexical head, and with an encoder the cross-encoder head for the best ENCODED
    sentences (both are calibrated probabilities of the same event, so one ranking holds)."""

    lexical: Head
    encoded: Head | None = None
    encoder: Encoder | None = None

    @property
    def name(self) -> str:
        return "cross-encoder" if self.encoder is not None else "lexical"

    @property
    def answers_at(self) -> float:
        return (self.encoded or self.lexical).answers_at

    def answered(self, read: Sequence[tuple[float, Scored]], subject: float) -> bool:
        """Whether the sources answer: `read` as `read` returns it (the lead's probability and
        coverage decide), `subject` how far a kept page is about the question's subject
        (`sentences.about_subject`)."""
        if not read:
            return False
        best, lead = read[0]
        return (self.encoded or self.lexical).answered(best, subject, lead.coverage)

    def read(
        self, ranked: Sequence[Scored], wanted: Asks, sources: Sequence[Source]
    ) -> list[tuple[float, Scored]]:
        """The best READ of `ranked` (best word overlap first), each with the probability
        that it answers the question: the lead first (the head's `Ranker` picks it; without
        one, the likeliest), then the others, the likeliest first."""
        top = ranked[:READ]
        best = ranked[0].value if ranked else 0.0
        read = inputs(top, wanted, sources, best, range(len(top)), self.encoder)
        found = chances(read, self.lexical, self.encoded)
        head = self.encoded or self.lexical
        return [(found[i], top[i]) for i in order(read, found, head.ranker, head is self.encoded)]

    def lead_chance(
        self, question: str, sentence: str, numbers: Sequence[int], sources: Sequence[Source]
    ) -> float:
        """The probability that `sentence`, citing `numbers`, answers `question`: any writer's
        lead claim. A quoted sentence is read where it stands: among the sentences the reader
        reads, with the probability the extractive writer saw (the same batch); a model's own
        words are read in the place of the cited page's sentence they share most words with."""
        wanted = asks(question.strip())  # as the engine hands the writer its question
        ranked = sorted(score(sentences(sources), wanted), key=lambda s: -s.value)
        pool = [s for s in ranked if s.cand.number in numbers]
        if not pool:
            return 0.0
        own = stems(sentence)
        cand = max(pool, key=lambda s: jaccard(own, s.cand.tokens)).cand
        if own == cand.tokens and any(s.cand is cand for s in ranked[:READ]):
            return next(p for p, s in self.read(ranked, wanted, sources) if s.cand is cand)
        if own != cand.tokens:
            context = (cand.context | cand.tokens) - own
            cand = replace(cand, text=sentence, tokens=own, context=context)
        item = score([cand], wanted)[0]
        rank = sum(1 for s in ranked if s.value > item.value)
        read = inputs([item], wanted, sources, ranked[0].value, [rank], self.encoder)
        return chances(read, self.lexical, self.encoded)[0]


@dataclass(frozen=True, slots=True)
class Inputs:
    """The heads' inputs for a run of sentences: lexical features for each, and the
    cross-encoder's scores for the first of them (none without the encoder)."""

    xs: list[list[float]]
    encoded: list[float]


def inputs(
    items: Sequence[Scored],
    wanted: Asks,
    sources: Sequence[Source],
    best: float,
    ranks: Iterable[int],
    encoder: Encoder | None,
) -> Inputs:
    """What the heads weigh for `items`, each at its rank by word overlap (`best` the run's
    best overlap score): the lexical features, and the encoder's scores for the first ENCODED,
    in one batch (its int8 scores depend slightly on the batch)."""
    subject = max(title_cover(sources, wanted).values(), default=0.0)
    xs = [features(s, wanted, subject, best, rank) for s, rank in zip(items, ranks, strict=True)]
    if encoder is None or not items:
        return Inputs(xs, [])
    first = items[:ENCODED]
    pages = {s.number: s.title for s in sources}
    texts = [s.cand.text for s in first]
    titled = [pages.get(s.cand.number, "") for s in first]
    return Inputs(xs, encoder.score(wanted.question, texts, titled))


def chances(read: Inputs, lexical: Head, encoded: Head | None) -> list[float]:
    """Each sentence's probability of answering: the cross-encoder head where the encoder
    read it, the lexical head beyond (both calibrated for the same event)."""
    out = [lexical.probability(x) for x in read.xs]
    if encoded is not None:
        for i, v in enumerate(read.encoded):
            out[i] = encoded.probability([*read.xs[i], v])
    return out


def load(data: dict[str, Any], encoder: Encoder | None) -> Reader:
    """The reader `reader.json` describes: with its cross-encoder head when an encoder is
    given."""
    if list(data["features"]) != list(FEATURES):
        raise ValueError("reader.json was trained on other features: retrain it")
    lexical = _ranked(Head.from_json(data["lexical"]), len(FEATURES))
    if encoder is not None and "cross_encoder" in data:
        encoded = _ranked(Head.from_json(data["cross_encoder"]), len(FEATURES) + len(RANKS))
        return Reader(lexical, encoded, encoder)
    return Reader(lexical)


def _ranked(head: Head, width: int) -> Head:
    if head.ranker is not None and len(head.ranker.weights) != width:
        raise ValueError("reader.json's ranker was trained on other inputs: retrain it")
    return head


def reader() -> Reader:
    """The shipped reader: the cross-encoder head when the `reader` extra is installed. Loaded
    once; a caller that asks while another thread loads it (a run's warm-up) waits for that
    load rather than starting a second one."""
    with _LOADING:
        return _load_shipped()


_LOADING = threading.Lock()


@cache
def _load_shipped() -> Reader:
    from .crossenc import shipped_encoder

    text = resources.files(__package__).joinpath(WEIGHTS).read_text(encoding="utf-8")
    return load(json.loads(text), shipped_encoder())
