"""Small text utilities shared by ranking, citation checks and the extractive writer."""

from __future__ import annotations

import re
from functools import lru_cache

WORD = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*", re.UNICODE)
SENTENCE_END = re.compile(
    r"(?<=[.!?])(?P<close>[\"'”’)\]]*)\s+"  # the end mark, then closing quotes or brackets
    r"(?=[\"'“‘(\[`*]?[A-Z0-9À-Ý`])"  # the next sentence starts capitalised or with a number
    # Chinese and Japanese full stops end a sentence with no space after them and no capital
    r"|(?<=[。！？])(?P<cjk>[」』”’）)\]]*)\s*(?=\S)"
)
_CLOSERS = "\"'”’)]"
ABBREVIATIONS = frozenset(
    """mr mrs ms dr prof sr jr st vs etc e.g i.e u.s u.k no fig inc ltd co corp approx vol ca
    tr pp ed al gen col capt lt sgt gov sen rep rev mt ft jan feb mar apr jun jul aug sep sept
    oct nov dec""".split()
)

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom whose why will with would you your yours yourself
    yourselves name named one many much give tell known called""".split()
) | {
    # A contraction of two stop-words is one too: "i'm" is "i am", "can't" is "can not" ("how
    # much is it to join if i'm a student" is about joining and students, and no page need say
    # "i'm"). Both apostrophes, as `words` keeps them. Not "what's" and the other question
    # words: `asks` reads one that opens a question, and one inside a title is its subject
    # ("what's eating gilbert grape").
    word.replace("'", apostrophe)
    for word in """i'm i've i'd i'll you're you've you'd you'll he's he'd he'll she's she'd
    she'll it's it'd it'll we're we've we'd we'll they're they've they'd they'll that's
    there's here's can't couldn't don't doesn't didn't isn't aren't wasn't weren't won't
    wouldn't shouldn't hasn't haven't hadn't""".split()
    for apostrophe in "'’"
}


def words(text: str) -> list[str]:
    return [w.lower().strip(".-'’") for w in WORD.findall(text)]


# Words a search query can lose without losing its meaning, on top of STOPWORDS.
QUERY_FILLER = frozenset(
    "best way ways good get use using used vs versus tell explain please against".split()
)
KEYWORD = re.compile(r"[\w][\w+#.\-]*[\w+#]|[\w]", re.UNICODE)  # keeps c++, c#, node.js


def keywords(text: str) -> list[str]:
    """The words of a query that carry meaning, in order and case kept, without repeats."""
    seen: dict[str, str] = {}
    for word in KEYWORD.findall(text):
        low = word.lower()
        if low not in STOPWORDS and low not in QUERY_FILLER and low not in seen:
            seen[low] = word
    return list(seen.values())


def content_tokens(text: str) -> list[str]:
    """Lower-cased words minus stop-words; numbers are kept (they carry most claims)."""
    return [w for w in words(text) if w and w not in STOPWORDS and (len(w) > 1 or w.isdigit())]


def split_sentences(text: str) -> list[tuple[int, str]]:
    """Split into (offset, sentence) pairs on sentence boundaries, skipping common abbreviations."""
    out: list[tuple[int, str]] = []
    start = 0
    for match in SENTENCE_END.finditer(text):
        # the closing quote or bracket belongs to the sentence it closes: without it a quoted
        # title ends as `"Nineteen Eighty-Four.` and the next sentence starts with a stray `"`
        closed = match.end("close") if match.group("close") is not None else match.end("cjk")
        candidate = text[start:closed].rstrip()
        last = candidate.rsplit(None, 1)[-1] if candidate else ""
        last_word = last.lower().strip("([\"'“‘").rstrip(_CLOSERS).rstrip(".")
        if last_word in ABBREVIATIONS or (len(last_word) == 1 and last_word.isalpha()):
            continue
        if candidate.strip():
            out.append((start, candidate))
        start = match.end()
    tail = text[start:].strip()
    if tail:
        out.append((start + (len(text[start:]) - len(text[start:].lstrip())), tail))
    return out


def clip(text: str, limit: int) -> str:
    """Cut at a word boundary so a quote never ends mid-word."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


LINE_RE = re.compile(r"[^\n]+")
MARKUP_START = re.compile(r"^\s*(?:#{1,6}\s|\||```|<|[-*+]\s|\d+[.)]\s)")
SENTENCE_ENDS = (".", "!", "?", ":", ";", '"', "”", ")")


def paragraph_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each paragraph, re-joining soft-wrapped lines (markdown, plain text).

    A line continues into the next when it is long, does not end a sentence, is followed by a
    single line break, and the next line is not markup; short lines (headings, list items)
    stand alone. Extracted HTML has one paragraph per line and is left as it is.
    """
    spans: list[tuple[int, int]] = []
    joined = False
    for match in LINE_RE.finditer(text):
        line = match.group()
        if not line.strip():
            joined = False
            continue
        if joined and spans and not MARKUP_START.match(line):
            spans[-1] = (spans[-1][0], match.end())
        else:
            spans.append((match.start(), match.end()))
        end = match.end()
        single_break = text[end : end + 1] == "\n" and text[end + 1 : end + 2] not in ("\n", "")
        joined = len(line) >= 60 and not line.rstrip().endswith(SENTENCE_ENDS) and single_break
    return spans


SUFFIXES = ("ations", "ation", "ings", "ing", "edly", "ed", "ies", "es", "ers", "er", "s", "ly")
POSSESSIVE = re.compile(r"['’]s?$")
# Irregular verb forms common in questions and answers ("who sang", "X wrote", "Y won").
IRREGULAR = dict(
    pair.split(":")
    for pair in """won:win sang:sing sung:sing wrote:write written:write built:build began:begin
    begun:begin made:make lost:lose died:die ran:run led:lead held:hold took:take taken:take
    gave:give given:give became:become came:come went:go gone:go sold:sell bought:buy
    taught:teach thought:think told:tell said:say saw:see seen:see chose:choose chosen:choose
    drew:draw drawn:draw flew:fly fought:fight grew:grow grown:grow knew:know met:meet
    paid:pay shot:shoot spoke:speak spoken:speak stood:stand struck:strike swam:swim
    threw:throw thrown:throw wore:wear worn:wear kept:keep sent:send spent:spend felt:feel
    fell:fall fallen:fall ate:eat eaten:eat drove:drive driven:drive rode:ride sank:sink
    sunk:sink hid:hide froze:freeze frozen:freeze""".split()
)


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A crude stemmer: enough for "checks"/"checked"/"checking", "Lowe's"/"Lowes",
    "founder"/"founded" and "sang"/"sings" to meet. Suffixes are stripped until none is left,
    so every form of a word ends at the same stem."""
    word = POSSESSIVE.sub("", word)
    word = IRREGULAR.get(word, word)
    for _ in range(3):
        cut = _strip_suffix(word)
        if cut == word:
            break
        word = cut
    # "update", "updated", "updates" -> "updat": a final e goes too.
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def _strip_suffix(word: str) -> str:
    for suffix in SUFFIXES:
        if not word.endswith(suffix) or len(word) - len(suffix) < 3:
            continue
        if suffix == "es" and not word[:-2].endswith(("s", "x", "z", "ch", "sh")):
            continue  # "writes" -> "write", not "writ"; "boxes" -> "box"
        return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word
