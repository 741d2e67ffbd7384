"""Model-proposed searches are untrusted: vet each one before it reaches a search backend.

Follow-up, bridge, planner and critic queries are model output, and the model has read pages
that may carry instructions. A page must be able to change words, never what is searched or
fetched, and nothing from the user's own files may leave the machine in a query. So a proposed
query is cut to a bounded length; refused when it holds a URL, when it shares no term with the
question, or when it carries text that only a private source (an included file, the knowledge
base) contains — a word no web page read and the question do not have, or a run of four words
copied from a private source.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..text import content_tokens, stem, words

MAX_QUERY_CHARS = 200
SHINGLE = 4  # words in a row copied from a private source that make a query a leak
URL = re.compile(
    r"[a-z][a-z0-9+.-]*://|\bwww\.|\b[\w-]+(?:\.[\w-]+)+/\S*|\bmailto:|\bfile:",
    re.IGNORECASE,
)
PRIVATE_SCHEMES = ("file:", "kb:")


@dataclass(frozen=True, slots=True)
class Text:
    """A source's words for the check: where it came from and what it says."""

    url: str
    text: str

    @property
    def private(self) -> bool:
        return self.url.startswith(PRIVATE_SCHEMES)


@dataclass(frozen=True, slots=True)
class Vetted:
    query: str | None  # None: refused
    reason: str = ""


def vet(proposed: str, question: str, sources: Iterable[Text] = ()) -> Vetted:
    """The query to send, cut to length, or None with the reason it may not be sent."""
    query = _bounded(proposed)
    if not query:
        return Vetted(None, "empty")
    if URL.search(query):
        return Vetted(None, "it contains a URL")
    if not _shares_a_term(query, question):
        return Vetted(None, "it shares no term with the question")
    leak = _private_text(query, question, list(sources))
    if leak:
        return Vetted(None, f"it carries text from a private source ({leak})")
    return Vetted(query)


def _bounded(text: str) -> str:
    flat = " ".join(text.split())
    if len(flat) <= MAX_QUERY_CHARS:
        return flat
    return flat[:MAX_QUERY_CHARS].rsplit(" ", 1)[0]


def _stems(text: str) -> set[str]:
    tokens = content_tokens(text)
    parts = [part for t in tokens if "-" in t for part in t.split("-") if len(part) > 2]
    return {stem(t) for t in (*tokens, *parts)}


def _shares_a_term(query: str, question: str) -> bool:
    """A term in common, allowing related forms (founders ~ co-founded, developer ~ develops)."""
    asked = _stems(question)
    return any(_related(q, a) for q in _stems(query) for a in asked)


def _related(a: str, b: str) -> bool:
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    return len(short) >= 4 and long.startswith(short)


def _private_text(query: str, question: str, sources: list[Text]) -> str:
    private = [s for s in sources if s.private]
    if not private:
        return ""
    public = set(_stems(question))
    for s in sources:
        if not s.private:
            public |= _stems(s.text)
    secret = {stem(t) for p in private for t in content_tokens(p.text)} - public
    if own := sorted(_stems(query) & secret):
        return f"words only it has: {', '.join(own[:3])}"
    if _copied_run(query, question, private):
        return f"{SHINGLE} words in a row"
    return ""


def _shingles(text: str) -> set[tuple[str, ...]]:
    tokens = words(text)
    return {tuple(tokens[i : i + SHINGLE]) for i in range(len(tokens) - SHINGLE + 1)}


def _copied_run(query: str, question: str, private: list[Text]) -> bool:
    runs = _shingles(query) - _shingles(question)
    return any(runs & _shingles(p.text) for p in private)
