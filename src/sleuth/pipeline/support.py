"""Whether a cited source supports a sentence, judged against one of its passages.

A page's whole bag of words supports almost any claim (a keyword-stuffed page supports every
claim), and a sentence can copy its source's words while changing the one figure that matters
("every 6 months" against "every 18 months"). So a source supports a sentence only when one of
its kept passages, read with the page title:

* holds at least `min_recall` of the sentence's content words (stemmed) within a short window of
  the passage — one or two consecutive sentences, or 60 words where the text has no sentence
  ends — so words scattered across a page do not add up to support;
* holds every number of the sentence (digits or a spelled-out two to twenty, "1,000" = "1000");
* names every month the sentence names, so a date cannot drift;
* holds every name of the sentence — its capitalised words: people, places, titles — with the
  title and the page's address (`names.py`), so a swapped name cannot pass on the other words;
* when the sentence says something about a subject ("Zephyr widgets are radioactive"), matches
  a word of what it says, not only the subject's own words;
* for a negated sentence ("is not", "never", "without"), negates too, in one sentence.

These are lexical: a paraphrased falsehood in the passage's own words still passes, which is
why every face calls a sentence "checked", not "true".

A long window with almost no function words is a keyword list (a stuffed page), not a
statement, and supports nothing.

A source with no passages (a bare page) is judged against its text split the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ..text import STOPWORDS, content_tokens, split_sentences, stem
from ..types import Source
from .names import folded_words, names, predicate

WINDOW_WORDS = 60
PROSE_MIN_WORDS, PROSE_SHARE = 20, 0.15  # English prose is about 40% function words
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
SPELLED = {
    word: str(n)
    for n, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
    if n >= 2  # "one" is mostly idiom ("one of the largest"), not a figure
}
SPELLED_WORD = re.compile(r"\b(" + "|".join(SPELLED) + r")\b", re.IGNORECASE)
MONTH = re.compile(
    r"\b(january|february|march|april|may|june|july|august|september|october|november|"
    r"december)\b"
)
NEGATION = re.compile(
    r"\b(?:not|no|never|none|neither|nor|cannot|without|nobody|nothing)\b|n['’]t\b",
    re.IGNORECASE,
)


def numbers(text: str) -> set[str]:
    found = {m.group(0).replace(",", "") for m in NUMBER.finditer(text)}
    found |= {SPELLED[m.group(1).lower()] for m in SPELLED_WORD.finditer(text)}
    return found


def months(text: str) -> set[str]:
    # "May" opens sentences as a verb too; only a month next to a number counts as a date.
    lowered = text.lower()
    return {
        m.group(1)
        for m in MONTH.finditer(lowered)
        if re.search(r"\d", lowered[max(0, m.start() - 6) : m.end() + 6])
    }


def stems_of(text: str) -> set[str]:
    return {stem(t) for t in content_tokens(text)}


@dataclass(frozen=True, slots=True)
class Window:
    text: str
    stems: frozenset[str]
    pair: bool = False  # two sentences

    @property
    def prose(self) -> bool:
        """Long text without function words is a keyword list, not a statement."""
        words = self.text.lower().split()
        if len(words) < PROSE_MIN_WORDS:
            return True
        return sum(w.strip(".,;:!?\"'()") in STOPWORDS for w in words) >= PROSE_SHARE * len(words)


@lru_cache(maxsize=512)
def windows(text: str) -> tuple[Window, ...]:
    """One and two consecutive sentences; over-long sentences in 60-word pieces (cached: every
    claim of an answer is checked against the same few passages)."""
    units: list[str] = []
    for _, sentence in split_sentences(text):
        words = sentence.split()
        step = WINDOW_WORDS // 2
        if len(words) <= WINDOW_WORDS:
            units.append(sentence)
        else:
            units += [" ".join(words[i : i + WINDOW_WORDS]) for i in range(0, len(words), step)]
    out = []
    for i, unit in enumerate(units):
        out.append(Window(unit, frozenset(stems_of(unit))))
        if i + 1 < len(units):
            pair = f"{unit} {units[i + 1]}"
            out.append(Window(pair, frozenset(stems_of(pair)), pair=True))
    return tuple(out)


def passages_of(source: Source) -> list[str]:
    if source.passages:
        return [p.text for p in source.passages]
    return [source.text] if source.text.strip() else []


def supports(sentence: str, source: Source, min_recall: float) -> bool:
    """True when one passage of `source` supports `sentence` (see the module docstring)."""
    wanted = stems_of(sentence)
    title = stems_of(source.title)
    figures, dates, named = numbers(sentence), months(sentence), names(sentence)
    said = predicate(sentence)
    negated = bool(NEGATION.search(sentence))
    for passage in passages_of(source):
        if not figures <= numbers(f"{source.title} {passage}"):
            continue
        if not dates <= months(passage):
            continue
        if not named <= folded_words(f"{source.title} {source.url} {passage}"):
            continue
        if _window_supports(wanted, title, passage, min_recall, negated, said):
            return True
    return not wanted and not figures and not dates and not negated and not named


def _window_supports(
    wanted: set[str],
    title: set[str],
    passage: str,
    min_recall: float,
    negated: bool,
    said: set[str],
) -> bool:
    if not wanted:
        return True
    for window in windows(passage):
        if not window.prose or (negated and window.pair):
            continue
        if said and not said & window.stems:
            continue  # only the subject's words match: nothing it says is in the window
        found = len(wanted & (window.stems | title)) / len(wanted)
        if found >= min_recall and (not negated or NEGATION.search(window.text)):
            return True
    return False


def context_of(sentence: str, source: Source) -> str:
    """The sentence of `source`'s passages that best matches `sentence`, with the sentences
    before and after it: what a reader of that passage sees around the claim."""
    wanted = stems_of(sentence)
    best: tuple[int, str] = (-1, "")
    for passage in passages_of(source):
        parts = [text for _, text in split_sentences(passage)]
        for i, part in enumerate(parts):
            found = len(wanted & stems_of(part))
            if found > best[0]:
                best = (found, " ".join(parts[max(0, i - 1) : i + 2]))
    return best[1]
