"""Named entities found without a model: a small, deterministic rule for capitalized names,
dates and quantities. No NLP library, so nothing heavy loads and the same text always gives
the same entities.

The rule, per sentence of a cited passage:

* **Names** are runs of capitalized words ("Example Cloud", "GPT-4", "iPhone", "NASA"), which
  may be joined by a lower-case connector (of, de, van, von, der, du, da, del, di, la, le, &)
  when a capitalized word follows ("Bank of England"). Stop-words at either end of a run are
  dropped ("In Paris" -> "Paris"). A single word that only ever appears capitalized at the start
  of a sentence is left out ("Audit logs are kept..."), unless it is an acronym or has a capital
  or digit inside it.
* **Dates**: "March 5, 2024", "5 March 2024", "March 2024", "2024-03-05", and years 1500-2099.
* **Quantities**: a number with a currency sign, a percent sign, a scale word (thousand, million,
  billion, trillion) or a unit word after it ("90 days", "$5 million", "42%", "3.5 GB"). Bare
  numbers are left out: without a unit they rarely mean anything on their own.

Scripts without capital letters (Chinese, Japanese...) give dates and quantities only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..text import STOPWORDS, split_sentences
from .model import EntityKind, norm

MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December"
    "|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)
_DATE = re.compile(
    rf"\b(?:(?:{MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{MONTHS})\.?,?\s+\d{{4}}"
    rf"|(?:{MONTHS})\.?\s+\d{{4}}"
    r"|\d{4}-\d{2}-\d{2}"
    r"|(?:1[5-9]|20)\d{2})\b"
)
SCALES = "thousand|million|billion|trillion|k|m|bn"
_QUANTITY = re.compile(
    r"(?<![\w.])(?:(?P<cur>[$€£¥])\s?)?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    rf"(?:\s?(?P<pct>%|percent\b))?(?:\s(?P<scale>{SCALES})\b)?"
    r"(?:\s?(?P<unit>[A-Za-zµ°][A-Za-z/µ°²³-]{0,20}))?"
)
_TOKEN = re.compile(r"[^\W_][\w'’.&-]*[^\W_]|[^\W_]|&", re.UNICODE)
CONNECTORS = frozenset("of de van von der du da del di la le &".split())
# Words that open sentences in capitals without naming anything ("However Example Cloud...").
OPENERS = frozenset(
    """however although though since unless whereas meanwhile today yesterday tomorrow
    according thus therefore still yet even despite unlike like please note see i'm i’m i've
    i’ve i'd i’d i'll i’ll thanks thank hi hello yes ok okay dear""".split()
)
MONTH_WORDS = frozenset(norm(m) for m in MONTHS.split("|"))
MAX_NAME_WORDS = 6


@dataclass(frozen=True, slots=True)
class Mention:
    key: str  # norm(label): how mentions of one entity meet
    label: str
    kind: EntityKind
    start: int  # character offset in the sentence
    end: int
    sentence_start: bool = False  # a one-word name at the very start of a sentence


def sentences(text: str) -> list[str]:
    """A passage as sentences (lines first, then sentence ends), stripped."""
    out: list[str] = []
    for line in text.splitlines():
        out.extend(s.strip() for _, s in split_sentences(line) if s.strip())
    return out


def find_mentions(sentence: str) -> list[Mention]:
    """Dates, quantities and names in one sentence, in order; they never overlap."""
    found = _dates(sentence)
    found += [m for m in _quantities(sentence) if not _overlaps(m, found)]
    found += [m for m in _names(sentence) if not _overlaps(m, found)]
    return sorted(found, key=lambda m: m.start)


def keep_names(all_mentions: Iterable[Mention]) -> set[str]:
    """Keys of one-word names seen capitalized somewhere other than a sentence's start."""
    return {m.key for m in all_mentions if m.kind == "name" and not m.sentence_start}


def _overlaps(m: Mention, others: list[Mention]) -> bool:
    return any(m.start < o.end and o.start < m.end for o in others)


def _dates(sentence: str) -> list[Mention]:
    return [
        Mention(norm(m.group()), m.group(), "date", m.start(), m.end())
        for m in _DATE.finditer(sentence)
    ]


def _quantities(sentence: str) -> list[Mention]:
    out: list[Mention] = []
    for m in _QUANTITY.finditer(sentence):
        unit = m.group("unit")
        if unit and (norm(unit) in STOPWORDS or (len(unit) < 2 and not unit.isupper())):
            unit = None  # "3 of", "5 a": not a unit
        if not (m.group("cur") or m.group("pct") or m.group("scale") or unit):
            continue
        end = m.end("unit") if unit else max(m.end("num"), m.end("pct"), m.end("scale"))
        label = sentence[m.start() : end].strip()
        out.append(Mention(norm(label), label, "quantity", m.start(), m.start() + len(label)))
    return out


def _names(sentence: str) -> list[Mention]:
    tokens = list(_TOKEN.finditer(sentence))
    out: list[Mention] = []
    run: list[re.Match[str]] = []
    for i, token in enumerate(tokens):
        word = token.group()
        following = tokens[i + 1].group() if i + 1 < len(tokens) else ""
        if run and sentence[run[-1].end() : token.start()].strip():
            out.extend(_name(sentence, run, tokens))  # punctuation between: a new run
            run = []
        joins = run and word in CONNECTORS and _capitalized(following)
        if _capitalized(word) or joins:
            run.append(token)
            continue
        out.extend(_name(sentence, run, tokens))
        run = []
    out.extend(_name(sentence, run, tokens))
    return out


def _name(sentence: str, run: list[re.Match[str]], tokens: list[re.Match[str]]) -> list[Mention]:
    while run and _filler(run[0].group(), opening=True):
        run = run[1:]
    while run and _filler(run[-1].group(), opening=False):
        run = run[:-1]
    if not run or len(run) > MAX_NAME_WORDS:
        return []
    label = sentence[run[0].start() : run[-1].end()].rstrip(".")
    if len(run) == 1 and (norm(label) in MONTH_WORDS or len(label) < 2):
        return []
    at_start = len(run) == 1 and run[0] is tokens[0] and not _marked(label)
    start = run[0].start()
    return [Mention(norm(label), label, "name", start, start + len(label), at_start)]


def _filler(word: str, opening: bool) -> bool:
    key = norm(word)
    return key in STOPWORDS or word in CONNECTORS or (opening and key in OPENERS)


def _capitalized(word: str) -> bool:
    """Starts with a capital, or has one inside after a letter ("iPhone", "eBay")."""
    if not word or not word[0].isalpha():
        return False
    return word[0].isupper() or any(c.isupper() for c in word[1:])


def _marked(word: str) -> bool:
    """An acronym, or a capital or digit inside the word: a name even at a sentence's start."""
    inner = word[1:]
    return any(c.isupper() or c.isdigit() for c in inner)
