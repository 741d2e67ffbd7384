"""Sentences of the kept passages, scored for how well they answer the question.

The score is a product of: the share of the question's key terms in the sentence, averaged
with their share in the sentence plus its neighbours and page title ("It was released in 2003"
answers through its neighbour); how much of the question the page's title names (a page about
the question's subject); the answer shape the question asks for (a duration for "how long", a
year for "when", a name for "who"); the relevance of the passage it comes from; and new
information — a sentence made only of the question's words restates it instead of answering.
Key terms count equally: weighting them by rarity among the run's own sentences made the
question's subject (found in every page read) count least. On 200 NQ dev questions (seeds 1
and 2) the best sentence held the answer in 0.46 of them, against 0.40 with rarity weights.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..text import content_tokens, paragraph_spans, split_sentences, stem
from ..types import Source
from .asks import Asks, coverage, has_shape
from .terms import alternates

DISAMBIGUATION = re.compile(r"\s*\([^)]*\)")  # "Sacrifice (song)"

MIN_WORDS, MAX_WORDS = 5, 80
MIN_ITEM_WORDS = 2  # a list item of a user's file: "Microchipping: £19"
# The asked-for answer shape present / no shape asked / absent.
SHAPE_WEIGHT = {True: 2.0, None: 1.5, False: 1.0}
MIN_LETTERS = 0.5  # share of letters: "The 12.9-kilometre (8 mi) bridge opened in 1997." passes
# Footnote-style markers inside page text ("[12]", "[citation needed]") must not pass as ours.
FOREIGN_MARKER = re.compile(r"\s*\[(?:\d+(?:\s*[-–,;]\s*\d+)*|[a-z ]{3,25})\]")
MARKUP_LINE = re.compile(r"^\s*(?:#{1,6}\s|\||```|<)")
HEADING = re.compile(r"^[ \t]*#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)  # a markdown heading
LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
# The tail of a sentence whose start the page lost ("lack a cell nucleus and…", "or The raid on
# Harper's Ferry) was…"): an all-lower-case first word. "iPhone" and "eBay" begin sentences.
MID_SENTENCE = re.compile(r"[\"'“‘(\[]*[a-z][a-z'’-]*\b(?![\w'’-]*[A-Z])")


@dataclass(frozen=True, slots=True)
class Candidate:
    number: int  # the source it comes from
    passage_rank: int
    offset: int  # position in the source text, for reading order
    text: str
    tokens: frozenset[str]  # stemmed content words
    context: frozenset[str]  # its neighbour sentences' and its title's, minus its own
    relevance: float  # the passage's BM25 score relative to the best passage of the run
    heading: str  # the markdown heading it stands under in a file ("On-call"), "" for none
    title: frozenset[str]  # its page's title and its heading, stemmed


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """Shared words over all words of two sentences' stems."""
    return len(a & b) / len(a | b) if a and b else 0.0


def stems(text: str) -> frozenset[str]:
    return frozenset(stem(t) for t in content_tokens(text))


def sentences(sources: Sequence[Source]) -> list[Candidate]:
    best = max((p.score for s in sources for p in s.passages), default=0.0) or 1.0
    out: list[Candidate] = []
    for source in sources:
        page = stems(source.title)
        own = source.url.startswith("file:")
        for rank, passage in enumerate(source.passages):
            relevance = max(0.0, passage.score) / best
            heading = heading_before(source.text, passage.start)
            for start, end in paragraph_spans(passage.text):
                line = " ".join(passage.text[start:end].split())
                if found := HEADING.match(line):
                    heading = found[1]
                if MARKUP_LINE.match(line):
                    continue
                title = page | stems(heading) if heading else page
                for offset, text, tokens, context in _line(line, passage.start + start, title, own):
                    out.append(
                        Candidate(
                            source.number,
                            rank,
                            offset,
                            text,
                            tokens,
                            context,
                            relevance,
                            heading,
                            title,
                        )
                    )
    return out


def heading_before(text: str, at: int) -> str:
    """The last markdown heading of `text` before offset `at`: the section a passage read
    from a user's file starts in. Pages from the web keep no headings."""
    last = ""
    for found in HEADING.finditer(text, 0, at):
        last = found[1]
    return last


def _line(
    line: str, start: int, title: frozenset[str], own: bool = False
) -> list[tuple[int, str, frozenset[str], frozenset[str]]]:
    """The usable sentences of one line, with their stems and their context's. In the user's
    own files (`own`) a list item is a statement even when it is not a sentence ("- Annual
    booster, cats: £49" under "## Vaccinations"): price lists, opening hours and rotas say
    their facts that way. On web pages list items are mostly menus and link lists."""
    parts = [
        (offset, " ".join(FOREIGN_MARKER.sub("", raw).split()))
        for offset, raw in split_sentences(LIST_MARK.sub("", line))
    ]
    tokens = [stems(sentence) for _, sentence in parts]
    item = LIST_MARK.match(line) is not None  # a list item may begin in lower case
    out = []
    for i, (offset, sentence) in enumerate(parts):
        listed = own and item and len(parts) == 1 and _worded(sentence, MIN_ITEM_WORDS)
        if not (listed or _usable(sentence)) or ((i or not item) and MID_SENTENCE.match(sentence)):
            continue
        # Both neighbours: "X (born 1992) is an actor. He is known for playing Ricky..."
        neighbours = (tokens[i - 1] if i else frozenset()) | (
            tokens[i + 1] if i + 1 < len(tokens) else frozenset()
        )
        out.append((start + offset, sentence, tokens[i], (neighbours | title) - tokens[i]))
    return out


def _usable(sentence: str) -> bool:
    """A declarative sentence of a sensible length: mostly letters, ends like a sentence."""
    stripped = sentence.rstrip("\"'”’)]")
    return _worded(sentence, MIN_WORDS) and stripped.endswith((".", "!")) and "``" not in sentence


def _worded(text: str, least: int) -> bool:
    """From `least` to MAX_WORDS words, mostly letters: a sentence (MIN_WORDS), or a list item
    of a user's file that states something (MIN_ITEM_WORDS)."""
    letters = sum(ch.isalpha() for ch in text)
    return least <= len(text.split()) <= MAX_WORDS and letters >= MIN_LETTERS * len(text)


INDIRECT_QUESTION = re.compile(
    r"\b(?:how (?:long|many|much|do|does|can|to)|whether|wonder(?:s|ed|ing)?|asks?|asked)\b", re.I
)


@dataclass(frozen=True, slots=True)
class Scored:
    cand: Candidate
    value: float
    coverage: float  # share of the question's key terms in the sentence and its context
    typed: bool | None  # holds the asked-for answer shape (None: nothing asked)
    title: float  # share of the question's key terms its title (page and heading) names


def title_cover(sources: Sequence[Source], wanted: Asks) -> dict[int, float]:
    """How much of the question each page names by its title, or by its title and one of its
    headings (a section of a user's file): a page about the question's subject."""
    return {s.number: max(coverage(wanted, t) for t in section_titles(s)) for s in sources}


def section_titles(source: Source) -> tuple[frozenset[str], ...]:
    """The stems of a kept page's title, then of its title with each of its markdown headings
    ("Engineering handbook" + "On-call"): what a user's file's sections are about, where its
    title names only its kind. Read once per page: the writer, the reader and the grade each
    ask for them."""
    return _section_titles(source.title, source.text or "\n".join(p.text for p in source.passages))


@lru_cache(maxsize=512)
def _section_titles(title: str, text: str) -> tuple[frozenset[str], ...]:
    page = stems(title)
    return (page, *(page | stems(found[1]) for found in HEADING.finditer(text)))


def titled_by(wanted: Asks, title: str) -> bool:
    """Every word of `title` (but a disambiguating parenthesis: "Sacrifice (song)") is a key
    term of the question: the page is about what it asks ("Canada", asked the largest city in
    Canada), though its title names only one of the question's three key terms."""
    words = stems(DISAMBIGUATION.sub("", title))
    return bool(words) and words <= wanted.terms.keys()


def about_subject(sources: Sequence[Source], wanted: Asks, titles: Mapping[int, float]) -> float:
    """How far a kept page is about the question's subject, by its title: 1 for a page
    `titled_by` the question, else the largest share of its key terms a title names (`titles`:
    `title_cover` for the writer and the reader, terms said in any form for the grade's
    `answerability.subject_cover`). The reader's run decision weighs it."""
    if any(titled_by(wanted, s.title) for s in sources):
        return 1.0
    return max(titles.values(), default=0.0)


def score(cands: Sequence[Candidate], wanted: Asks) -> list[Scored]:
    """Score every candidate; see the module docstring for the terms of the product. A
    question's everyday or clipped word counts where the text writes the usual one ("the
    yearly sub": "Annual subscription: £96"; `terms.SAME_WORDS`)."""
    other = alternates(wanted)
    covers: dict[frozenset[str], float] = {}
    out = []
    for c in cands:
        if c.title not in covers:
            covers[c.title] = coverage(wanted, _said(c.title, other))
        out.append(_scored(c, wanted, covers[c.title], other))
    return out


def _said(tokens: frozenset[str], other: dict[str, frozenset[str]]) -> frozenset[str]:
    """`tokens`, with the key of each question term they write as another word."""
    if not other:
        return tokens
    return tokens | {key for key, stems in other.items() if stems & tokens}


def _scored(c: Candidate, wanted: Asks, title: float, other: dict[str, frozenset[str]]) -> Scored:
    own = coverage(wanted, _said(c.tokens, other))
    near = coverage(wanted, _said(c.tokens | c.context, other))
    typed = None if wanted.shape is None else has_shape(wanted.shape, c.text, wanted.question)
    shape = SHAPE_WEIGHT[typed]
    novelty = len(c.tokens - set(wanted.terms)) / max(1, len(c.tokens))
    value = (1 + title) * (own + near) / 2 * shape * math.sqrt(0.35 + c.relevance)
    value *= 0.4 + min(novelty, 0.6)
    if INDIRECT_QUESTION.search(c.text):
        value *= 0.3  # "we wonder how long ...": it asks, it does not answer
    return Scored(c, value, near, typed, title)
