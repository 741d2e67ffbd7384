"""Whether a text says a question's term, in the question's form or another (issue 25).

The answerability rule names the question's subject terms a cited passage does not say, and an
answer beside such a reason is never `high`. Matching stems alone called "erupted" missing from
a passage that says "eruption", "14th" from one that says "fourteenth" and "us" from one about
"the United States". A term also counts as said when the text says it:

* as another word of its family: an inflection the stemmer misses ("dropped"/"drop", a dropped
  g: "knockin'") or a derivation that keeps the meaning ("erupt"/"eruption",
  "elect"/"election", "develop"/"development", "direct"/"director");
* inside a hyphenated compound ("quarter-finals", "best-selling"), or closed up from two
  neighbouring words ("super star"/"superstar");
* as the same number: in digits grouped otherwise ("10000"/"10,000"), or in words or as an
  ordinal beside the same word as in the question ("14th season"/"fourteenth season", "season
  4"/"the fourth season", "3 point line"/"three-point line"). Number words are among the
  commonest in prose, so "four" alone does not say the "4" of "vikings season 4" ("the fifth
  season differs from the previous four");
* by another name from a short table of common abbreviations and country adjectives
  ("US"/"U.S."/"United States"/"American", "UK"/"Britain"/"British"), units ("oz"/"ounce"),
  everyday words ("dad"/"father") and clipped words ("sub"/"subscription", "bike"/"bicycle");
* without the apostrophe the question leaves out ("cant"/"Can't", "dont"/"Don't");
* as a Roman numeral beside the same word ("world war 2"/"World War II", "super bowl
  51"/"Super Bowl LI");
* as the words an initialism stands for, capitalised as a name ("svu"/"Special Victims Unit").

A term a passage does not say at all may still be too common to show that the passage is about
something else (`slight`): "history" in "the longest-serving manager in Manchester United
history", "place" in "when does the festival take place". Such a word is one of the ~1,000
commonest in English (`common_words.txt`, from wordfreq's frequencies, names left out), the kept
pages do not write it as a name (capitalised mid-sentence more often than in lower case), it is
no number, and it is not the kind of thing the question asks for
("from what *state*").

Suffix rules never make one name of another: "Jordanian" does not say "Jordan" (a player's name
as often as a country's) and "Nigerian" does not say "Niger"; only the table relates a country
to its adjective. The table is general usage, not read off any question set.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from itertools import pairwise

from ..text import STOPWORDS, stem, words
from .asks import Asks
from .support import stems_of

ROOT_MIN = 4  # a derived word's root this short is as often another word ("act"/"action")
# Derivations that keep a word's meaning: the action of a verb ("erupt-ion", "elect-ion", only
# after a consonant and t, so "station" is not "state" nor "billion" "bill"), its result
# ("develop-ment") and its agent ("direct-or", "invent-or"; never after a vowel: "floor").
DERIVED = re.compile(r"(?:(?<=[^aeiou]t)ion|ment|(?<=[^aeiou])or)s?$")
# A doubled final consonant before an ending: "dropped" -> "dropp" -> "drop".
DOUBLED = re.compile(r"([bdgmnprt])\1$")
ELIDED = re.compile(r"\b([A-Za-z]{3,}in)['’](?!\w)")  # "Knockin'" is "Knocking"
GROUPED = re.compile(r"\b\d{1,3}(?:,\d{3})+\b")  # "10,000" is 10000
INITIALISM = re.compile(r"[a-z]{2,6}")
APOSTROPHE = re.compile(r"['’]")
DIGITS = re.compile(r"^(\d+)(?:st|nd|rd|th)?$")
UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
UNIT_ORDINALS = (
    "zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth"
).split()
TEN_ORDINALS = "twentieth thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth"


def _roman(n: int) -> str:
    tens, units = divmod(n, 10)
    ones = ["", "i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix"]
    return ["", "x", "xx", "xxx", "xl", "l", "lx", "lxx", "lxxx"][tens] + ones[units]


# Roman numerals of two letters or more, up to 89: "World War II", "Super Bowl LI". Like any
# number they say a question's number only beside the same word ("world war 2"), so "Xi" the
# name or "Li" says no 11 or 51 on its own.
ROMAN: dict[str, int] = {_roman(n): n for n in range(2, 90) if len(_roman(n)) > 1}
NUMBER_WORDS: dict[str, int] = {
    **{w: n for n, w in enumerate(UNITS)},
    **{w: n for n, w in enumerate(UNIT_ORDINALS)},
    **{w: 20 + 10 * n for n, w in enumerate(TENS)},
    **{w: 20 + 10 * n for n, w in enumerate(TEN_ORDINALS.split())},
}
# One name per line: the forms a text may use for it. In a page they are matched as written
# (so "US" and "U.S." but not the pronoun "us"); in a question, in any case. "American" is not
# the United States after "North", "South", "Latin" or "Central".
ALIASES: tuple[tuple[str, ...], ...] = (
    ("United States", "U.S.A.", "U.S.", "USA", "US", "America", "American", "Americans"),
    ("United Kingdom", "U.K.", "UK", "Great Britain", "Britain", "British"),
    ("Soviet Union", "U.S.S.R.", "USSR", "Soviet"),
    ("United Nations", "U.N.", "UN"),
    ("European Union", "E.U.", "EU"),
    ("England", "English"),
    ("Scotland", "Scottish"),
    ("Ireland", "Irish"),
    ("Wales", "Welsh"),
    ("France", "French"),
    ("Germany", "German"),
    ("Spain", "Spanish"),
    ("Italy", "Italian"),
    ("Netherlands", "Holland", "Dutch"),
    ("Russia", "Russian"),
    ("China", "Chinese"),
    ("Japan", "Japanese"),
    ("India", "Indian"),
    ("Canada", "Canadian"),
    ("Australia", "Australian"),
    ("Mexico", "Mexican"),
)
# Everyday words a page writes in their formal form: "who plays the dad" is answered by "his
# father". A question's word says its line's other words too.
SAME_WORDS: tuple[frozenset[str], ...] = tuple(
    frozenset(line.split())
    for line in (
        "mother mom mum mommy",
        "father dad daddy",
        "grandmother grandma granny",
        "grandfather grandpa",
        "child kid",
        "children kids",
        "television tv",
        "ounce ounces oz",
        "pound pounds lb lbs",
        "foot feet ft",
        "kilometre kilometres kilometer kilometers km",
        # Clipped words ("the yearly sub" for "Annual subscription: £96"): a user types the
        # short form, a page or a file writes the whole word.
        "subscription subscriptions sub subs",
        "information info",
        "university universities uni",
        "examination examinations exam exams",
        "photograph photographs photo photos",
        "laboratory laboratories lab labs",
        "bicycle bicycles bike bikes",
        "telephone telephones phone phones",
        "mathematics maths math",
        "refrigerator refrigerators fridge fridges",
        "veterinarian veterinarians veterinary vet vets",
        "gymnasium gymnasiums gym gyms",
        "representative representatives rep reps",
        "introduction introductions intro intros",
        "demonstration demonstrations demo demos",
        "microphone microphones mic mics",
        "influenza flu",
        "christmas xmas",
        "maximum max",
        "operation operations op ops",
    )
)
CONTINENT = r"(?<!North )(?<!South )(?<!Latin )(?<!Central )"


def _pattern(forms: Iterable[str], flags: int) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))
    return re.compile(rf"{CONTINENT}(?<![\w.])(?:{alternatives})(?![\w]|\.\w)", flags)


IN_PAGE = tuple(_pattern(forms, 0) for forms in ALIASES)
IN_QUESTION = tuple(_pattern(forms, re.IGNORECASE) for forms in ALIASES)


@dataclass(frozen=True, slots=True)
class Page:
    """A text's words, read once: dropped g's restored, grouped digits and initialisms closed
    up ("10,000" -> "10000", "U.S." -> "us"). Forms are derived only for the words that share
    a missing term's first letters, so a long page costs a scan, not a stemmer pass."""

    text: str
    words: tuple[str, ...]
    joined: tuple[tuple[str, str, str], ...]  # `_joined(words)`, formed once per page

    def near(self, word: str) -> set[str]:
        """The roots of the page's words, their compound parts and neighbouring words written
        as one ("super star") that could be a form of `word`: those sharing its first letters."""
        heads = {word[:3]} | {r[:3] for r in roots(word)}  # "won" is "win"
        near = [w for w in self.words if any(h in w for h in heads)]
        out = {r for w in near for f in _compound(w) for r in roots(f)}
        out |= {joined for a, _, joined in self.joined if a[:3] in heads}
        return out

    def names(self, line: int) -> bool:
        forms = ALIASES[line]
        return any(f in self.text for f in forms) and bool(IN_PAGE[line].search(self.text))


COMMON_WORDS = "common_words.txt"  # training/words/common_words.py writes it
CATEGORY = re.compile(r"\b(?:what|which)\s+([a-z]+)", re.IGNORECASE)  # "from what state"


def slight(word: str, wanted: Asks, texts: Sequence[str]) -> bool:
    """Whether `word`, a question term a passage does not say, is too common a word for its
    absence to show the passage is about something else: one of the commonest English words,
    not written as a name in `texts` (the kept pages: capitalised mid-sentence more often than
    in lower case, as "Neil Young"), not a number, and not the kind of thing the question asks
    for."""
    if word not in common_words() or number(word) is not None:
        return False
    if any(m.group(1).lower() == word for m in CATEGORY.finditer(wanted.question)):
        return False
    return not written_as_name(word, texts)


def written_as_name(word: str, texts: Sequence[str]) -> bool:
    """Whether `texts` write `word` as a name: capitalised mid-sentence ("Neil Young",
    "in Italy") more often than in lower case."""
    plain = re.compile(rf"\b{re.escape(word)}\b")
    named = re.compile(rf"(?<=[a-z,;] ){re.escape(word.capitalize())}\b")
    lower = sum(len(plain.findall(t)) for t in texts)
    return sum(len(named.findall(t)) for t in texts) > lower


@cache
def common_words() -> frozenset[str]:
    text = resources.files(__package__).joinpath(COMMON_WORDS).read_text(encoding="utf-8")
    return frozenset(w for w in text.splitlines() if w and not w.startswith("#"))


def alternates(wanted: Asks) -> dict[str, frozenset[str]]:
    """By the key of each question term `SAME_WORDS` lists, the stems of the other words a page
    may write it as ("subscription" for "sub", "father" for "dad"): what the word-overlap
    ranking counts as the term (`sentences.score`)."""
    out = {}
    for key, word in wanted.terms.items():
        others = {stem(other) for other in same_as(word)} - {key}
        if others:
            out[key] = frozenset(others)
    return out


@lru_cache(maxsize=4096)
def same_as(word: str) -> frozenset[str]:
    """The other words of `word`'s lines of SAME_WORDS ("subscription", "subs" for "sub")."""
    return frozenset(other for line in SAME_WORDS if word in line for other in line - {word})


def terms_said(wanted: Asks, text: str) -> set[str]:
    """The stems of `text`, and the keys of the question's terms it says in another form:
    what coverage and the missing-term rule count as present."""
    found = stems_of(text)
    absent = {key: word for key, word in wanted.terms.items() if key not in found}
    if not absent:
        return found
    return found | (_matched(wanted, absent, page_of(text)) & absent.keys())


def _matched(wanted: Asks, absent: dict[str, str], page: Page) -> set[str]:
    keys = {key for key, word in absent.items() if _says(word, page)}
    keys |= _closed_compounds(wanted.question, page)
    if any(number(word) is not None for word in absent.values()):
        beside = {(value, near) for _, value, near in _beside(page.words)}
        asked = _beside(words(wanted.question))
        keys |= {stem(w) for w, value, near in asked if (value, near) in beside}
    keys |= {key for line, key in _names(wanted) if key in absent and page.names(line)}
    keys |= {key for key, word in absent.items() if _spelled_out(word, page.text)}
    return keys


def _spelled_out(word: str, text: str) -> bool:
    """Whether `text` writes out the initialism `word` as capitalised words with its letters
    as initials: "svu" as "Special Victims Unit", "nba" as "National Basketball Association".
    A common word ("can", "war") is no initialism."""
    if not INITIALISM.fullmatch(word) or word in common_words():
        return False
    spelled = r"\s+".join(rf"{letter.upper()}[a-z]+" for letter in word)
    return re.search(rf"\b{spelled}\b", text) is not None


def _says(word: str, page: Page) -> bool:
    if any(roots(form) & page.near(form) for form in _unquoted(word)):
        return True
    if any(roots(other) & page.near(other) for other in same_as(word)):
        return True
    parts = [p for p in word.split("-") if p]
    return len(parts) > 1 and all(roots(p) & page.near(p) for p in parts)


def _closed_compounds(question: str, page: Page) -> set[str]:
    """Two neighbouring question words the text writes as one ("super star"/"superstar")."""
    out: set[str] = set()
    for a, b, joined in _joined(words(question)):
        if joined in page.near(a):
            out |= {stem(a), stem(b)}
    return out


def _joined(said_words: Sequence[str]) -> Iterator[tuple[str, str, str]]:
    """Each two neighbouring content words, and the stem of the two written as one."""
    for a, b in pairwise(said_words):
        if a and b and a not in STOPWORDS and b not in STOPWORDS:
            yield a, b, stem(a + b)


def _names(wanted: Asks) -> list[tuple[int, str]]:
    """(ALIASES line, term key) for each question term inside a name the table knows."""
    out = []
    for line, pattern in enumerate(IN_QUESTION):
        for m in pattern.finditer(wanted.question):
            out += [(line, stem(w)) for w in words(m.group(0)) if w]
    return out


@lru_cache(maxsize=256)
def page_of(text: str) -> Page:
    plain = GROUPED.sub(lambda m: m.group(0).replace(",", ""), ELIDED.sub(r"\1g", text))
    said_words = [w.replace(".", "") if _initialism(w) else w for w in words(plain)]
    return Page(plain, tuple(said_words), tuple(_joined(said_words)))


def _compound(word: str) -> list[str]:
    """A word, and a hyphenated one closed up and in its parts: "quarter-finals",
    "quarterfinals", "quarter", "finals"; one with an apostrophe also without it: "can't" as
    "cant"."""
    forms = _unquoted(word)
    if "-" not in word:
        return forms
    return [*forms, word.replace("-", ""), *word.split("-")]


def _unquoted(word: str) -> list[str]:
    """A word, and with an apostrophe, the word written without it ("can't" as "cant", "i've"
    as "ive"). A possessive needs no form of its own: `stem` drops the "'s"."""
    if not APOSTROPHE.search(word):
        return [word]
    return [word, APOSTROPHE.sub("", word)]


@lru_cache(maxsize=4096)
def roots(word: str) -> frozenset[str]:
    """The word's stem, and the root of its family: "eruption" -> {"eruption", "erupt"},
    "dropped" -> {"dropp", "drop"}, "directors" -> {"director", "direct"}."""
    if not word:
        return frozenset()
    base = stem(word)
    out = {base}
    doubled = DOUBLED.search(base)
    if doubled and base != word:
        out.add(base[:-1])
    root = DERIVED.sub("", base)
    if root != base and len(root) >= ROOT_MIN:
        out.add(stem(root))
    return frozenset(out)


def _beside(said_words: Sequence[str]) -> list[tuple[str, int, str]]:
    """(word, its number, the stem of a content word beside it) for each number word, hyphenated
    compounds read as their parts ("three-point" is "three" beside "point")."""
    content = [
        p
        for w in said_words
        for p in ([w] if number(w) is not None else w.split("-"))
        if p and p not in STOPWORDS
    ]
    out = []
    for i, word in enumerate(content):
        value = number(word)
        if value is None:
            continue
        out += [(word, value, stem(content[j])) for j in (i - 1, i + 1) if 0 <= j < len(content)]
    return out


def number(word: str) -> int | None:
    """The number a word says: "14th", "14", "fourteen", "fourteenth", "twenty-first", "xiv"."""
    digits = DIGITS.match(word)
    if digits:
        return int(digits.group(1))
    if word in NUMBER_WORDS:
        return NUMBER_WORDS[word]
    tens, _, unit = word.partition("-")
    if tens in TENS and unit in NUMBER_WORDS and 0 < NUMBER_WORDS[unit] < 10:
        return NUMBER_WORDS[tens] + NUMBER_WORDS[unit]
    return ROMAN.get(word)


def _initialism(word: str) -> bool:
    """ "u.s", "u.k", "u.s.s.r": single letters between full stops."""
    return len(word) >= 3 and all(len(p) == 1 for p in word.split("."))
