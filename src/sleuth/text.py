"""Small text utilities shared by ranking, citation checks and the extractive writer."""

from __future__ import annotations

import re

WORD = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*", re.UNICODE)
SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+(?=[\"'“‘(\[]?[A-Z0-9À-Ý])")
ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof sr jr st vs etc e.g i.e u.s u.k no fig inc ltd co corp approx".split()
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
)


def words(text: str) -> list[str]:
    return [w.lower().strip(".-'’") for w in WORD.findall(text)]


def content_tokens(text: str) -> list[str]:
    """Lower-cased words minus stop-words; numbers are kept (they carry most claims)."""
    return [w for w in words(text) if w and w not in STOPWORDS and (len(w) > 1 or w.isdigit())]


def split_sentences(text: str) -> list[tuple[int, str]]:
    """Split into (offset, sentence) pairs on sentence boundaries, skipping common abbreviations."""
    out: list[tuple[int, str]] = []
    start = 0
    for match in SENTENCE_END.finditer(text):
        candidate = text[start : match.start()].rstrip()
        last_word = candidate.rsplit(None, 1)[-1].lower().rstrip(".") if candidate else ""
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
