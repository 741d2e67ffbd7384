"""Model-proposed searches are untrusted: vet each one before it reaches a search backend.

Follow-up, bridge, planner and critic queries are model output, and the model has read pages
that may carry instructions. A page must be able to change words, never what is searched or
fetched, and nothing from the user's own files may leave the machine in a query. So a proposed
query is cut to a bounded length; refused when it holds a URL, when it shares no term with the
question, or when it carries text that only a private source (an included file, the knowledge
base) contains — a word no web page read and the question do not have, or a run of four words
copied from a private source.

Once pages have been read, every term of a proposed query must also be vouched for: in the
question, or on public pages of at least two independent sites. A page could otherwise choose
the search by naming a keyword only it holds (and then be fetched as its result), and a
private word encoded past the private-source check (ROT13 turned "Jane Doe salary" from an
included memo into "Wnar Qbr fnynel") is a word no page and no question has, whatever the
encoding (issue 24).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from ..text import content_tokens, stem, words
from ..urls import domain_of

MAX_QUERY_CHARS = 200
SHINGLE = 4  # words in a row copied from a private source that make a query a leak
VOUCHING_SITES = 2  # independent sites whose pages must hold a query term the question lacks
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
    texts = list(sources)
    leak = _private_text(query, question, texts)
    if leak:
        return Vetted(None, f"it carries text from a private source ({leak})")
    if unvouched := _unvouched(query, question, texts):
        shown = ", ".join(unvouched[:3])
        return Vetted(None, f"neither the question nor two independent sites have: {shown}")
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


def _unvouched(query: str, question: str, sources: list[Text]) -> list[str]:
    """The query's terms that neither the question has nor public pages of VOUCHING_SITES
    independent sites; none to check before any page was read (nothing read chose it)."""
    if not sources:
        return []
    asked = _stems(question)
    sites: dict[str, set[str]] = {}
    for source in sources:
        if not source.private:
            for term in _text_stems(source.text):
                sites.setdefault(term, set()).add(domain_of(source.url))
    return sorted(
        term
        for term in _stems(query)
        if not any(_related(term, a) for a in asked) and len(sites.get(term, ())) < VOUCHING_SITES
    )


@lru_cache(maxsize=64)
def _text_stems(text: str) -> frozenset[str]:
    """A page's stems, kept: every vetted query of a run is checked against the same pages."""
    return frozenset(_stems(text))


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
