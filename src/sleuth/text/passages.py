"""Split page text into passages and rank them against the question with BM25.

Passages follow paragraph and sentence boundaries, aim for 60–200 words, and keep the character
offset of their first character in the page's extracted text, so a quote can be found again.
Ranking uses SQLite FTS5's bm25() (stdlib, porter stemming): no extra dependency, and fast enough
for a few thousand passages per run.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from . import content_tokens, paragraph_spans, split_sentences

MIN_WORDS = 60
MAX_WORDS = 200
# Lines of one page that are split at all. Extracted HTML has a paragraph a line and a 5 MB body
# rarely reaches 10,000; a hostile page of 550,000 one-word paragraphs would cost seconds.
MAX_LINES = 50_000


@dataclass(frozen=True, slots=True)
class Chunk:
    start: int
    text: str
    # Counted once: recounting a growing merged chunk on every merge made a page of 550,000
    # one-word paragraphs cost 9 s to split (quadratic in the merge length).
    n_words: int = -1

    def __post_init__(self) -> None:
        if self.n_words < 0:
            object.__setattr__(self, "n_words", len(self.text.split()))


def _paragraphs(text: str) -> list[Chunk]:
    out = []
    for start, end in paragraph_spans(text):
        chunk = text[start:end]
        lead = len(chunk) - len(chunk.lstrip())
        out.append(Chunk(start + lead, chunk.strip()))
    return out


def _split_long(chunk: Chunk) -> list[Chunk]:
    """Break a paragraph over MAX_WORDS at sentence boundaries (or word boundaries, last resort)."""
    pieces: list[Chunk] = []
    current: list[tuple[int, str]] = []
    count = 0
    for offset, sentence in split_sentences(chunk.text) or [(0, chunk.text)]:
        n = len(sentence.split())
        if current and count + n > MAX_WORDS:
            pieces.append(_join(chunk, current))
            current, count = [], 0
        current.append((offset, sentence))
        count += n
    if current:
        pieces.append(_join(chunk, current))
    return [p for part in pieces for p in _hard_split(part)]


def _join(parent: Chunk, sentences: list[tuple[int, str]]) -> Chunk:
    first, last = sentences[0], sentences[-1]
    end = last[0] + len(last[1])
    return Chunk(parent.start + first[0], parent.text[first[0] : end])


def _hard_split(chunk: Chunk) -> list[Chunk]:
    if chunk.n_words <= MAX_WORDS * 1.5:
        return [chunk]
    spans = [m for m in re.finditer(r"\S+", chunk.text)]
    out = []
    for i in range(0, len(spans), MAX_WORDS):
        group = spans[i : i + MAX_WORDS]
        out.append(
            Chunk(chunk.start + group[0].start(), chunk.text[group[0].start() : group[-1].end()])
        )
    return out


def split_passages(text: str) -> list[Chunk]:
    """Paragraph-aligned passages of roughly MIN_WORDS..MAX_WORDS words, offsets preserved."""
    merged: list[Chunk] = []
    for para in _paragraphs(_first_lines(text, MAX_LINES)):
        for piece in _split_long(para) if para.n_words > MAX_WORDS else [para]:
            prev = merged[-1] if merged else None
            if prev and prev.n_words < MIN_WORDS and prev.n_words + piece.n_words <= MAX_WORDS:
                joined = text[prev.start : piece.start + len(piece.text)]
                merged[-1] = Chunk(prev.start, joined, prev.n_words + piece.n_words)
            else:
                merged.append(piece)
    return merged


def _first_lines(text: str, limit: int) -> str:
    """The prefix of `text` holding its first `limit` lines (offsets stay valid)."""
    end = -1
    for _ in range(limit):
        end = text.find("\n", end + 1)
        if end < 0:
            return text
    return text[:end]


def fts_query(question: str) -> str:
    tokens = dict.fromkeys(t.replace('"', "") for t in content_tokens(question))
    return " OR ".join(f'"{t}"' for t in list(tokens)[:40] if t)


def bm25_scores(
    question: str,
    docs: Sequence[str],
    titles: Sequence[str] | None = None,
    title_weight: float = 0.5,
) -> list[float]:
    """BM25 of each doc against the question (higher is better, 0 when nothing matches)."""
    scores = [0.0] * len(docs)
    query = fts_query(question)
    if not query or not docs:
        return scores
    titles = titles if titles is not None else [""] * len(docs)
    db = sqlite3.connect(":memory:")
    try:
        db.execute(
            "create virtual table p using fts5(title, body, tokenize='porter unicode61 "
            "remove_diacritics 2')"
        )
        db.executemany(
            "insert into p(rowid, title, body) values (?, ?, ?)",
            ((i, titles[i], docs[i]) for i in range(len(docs))),
        )
        rows = db.execute(
            "select rowid, bm25(p, ?, 1.0) from p where p match ?", (title_weight, query)
        ).fetchall()
    finally:
        db.close()
    for rowid, score in rows:
        scores[rowid] = -float(score)
    return scores
