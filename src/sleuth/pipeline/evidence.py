"""From read pages to numbered sources: split, rank passages, keep the best per source.

All passages of all pages are ranked in one BM25 index so term weights are shared across the
run. A source's score is its best passage's score. Sources that were read outrank snippet-only
sources; pre-read results (included files, saved sources) come first and get the lowest numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..text.passages import bm25_scores, split_passages
from ..types import Page, Passage, Source
from .candidates import Candidate

# Weight of search rank next to the best passage's BM25 (scaled to 1) when ranking sources.
# On 80 sampled dev questions each: gold page kept NQ 67 -> 68, HotpotQA 79 -> 80 (all gold
# 50 -> 52), MuSiQue 66 -> 70 of 80, moving from 0 to 0.3-0.6 (CHANGELOG).
SEARCH_PRIOR = 0.5


@dataclass(frozen=True, slots=True)
class EvidenceLimits:
    max_sources: int = 6
    passages_per_source: int = 4


@dataclass(frozen=True, slots=True)
class Read:
    """A candidate and the page read for it (None: only its search snippet is known)."""

    candidate: Candidate
    page: Page | None

    @property
    def anchored(self) -> bool:
        return self.candidate.result.page is not None


def rank_passages(question: str, reads: Sequence[Read]) -> list[list[Passage]]:
    """Passages of every read, best first, scored in one shared index."""
    pages = [r.page for r in reads]
    chunks = [split_passages(p.text) if p else [] for p in pages]
    flat = [(i, c) for i, cs in enumerate(chunks) for c in cs]
    titles = [_title(pages[i]) for i, _ in flat]
    scores = bm25_scores(question, [c.text for _, c in flat], titles)
    ranked: list[list[Passage]] = [[] for _ in reads]
    for (i, chunk), score in zip(flat, scores, strict=True):
        ranked[i].append(Passage(chunk.text, score, chunk.start))
    for passages in ranked:
        passages.sort(key=lambda p: (-p.score, p.start))
    return ranked


def _search_prior(position: int) -> float:
    """The search engine's own ordering, as a small prior on top of passage relevance."""
    return SEARCH_PRIOR / (1 + position)


def _title(page: Page | None) -> str:
    return page.title if page is not None else ""


def snippet_passages(question: str, reads: Sequence[Read]) -> list[Passage]:
    snippets = [r.candidate.result.snippet for r in reads]
    scores = bm25_scores(question, snippets, [r.candidate.result.title for r in reads])
    return [Passage(s, score, 0) for s, score in zip(snippets, scores, strict=True)]


def build_sources(
    question: str, reads: Sequence[Read], limits: EvidenceLimits, first_number: int = 1
) -> list[Source]:
    """Choose and number the sources given to the writer."""
    read = [r for r in reads if r.page is not None and r.page.text.strip()]
    unread = [r for r in reads if r.page is None and r.candidate.result.snippet.strip()]
    ranked = rank_passages(question, read)
    scored = []
    for r, passages in zip(read, ranked, strict=True):
        keep = tuple(passages[: limits.passages_per_source])
        best = keep[0].score if keep else 0.0
        scored.append((r, keep, best))
    # Anchors first, then read pages by relevance (relevant before irrelevant), then snippets.
    top = max((best for _, _, best in scored), default=0.0) or 1.0
    prior = {id(r): _search_prior(i) for i, r in enumerate(read)}
    scored.sort(
        key=lambda item: (not item[0].anchored, item[2] <= 0, -(item[2] / top + prior[id(item[0])]))
    )
    snippet_scored = sorted(
        zip(unread, snippet_passages(question, unread), strict=True), key=lambda x: -x[1].score
    )
    chosen = [(r, keep, best, False) for r, keep, best in scored if keep]
    chosen += [(r, (p,), p.score, True) for r, p in snippet_scored]
    return [
        _source(first_number + i, r, keep, best, is_snippet)
        for i, (r, keep, best, is_snippet) in enumerate(chosen[: limits.max_sources])
    ]


def _source(
    number: int, r: Read, passages: tuple[Passage, ...], score: float, is_snippet: bool
) -> Source:
    result = r.candidate.result
    page = r.page
    return Source(
        number=number,
        url=page.url if page else result.url,
        title=(page.title if page and page.title else result.title) or result.url,
        score=score,
        passages=passages,
        fetched_at=page.fetched_at if page else None,
        published=(page.published if page else None) or result.published,
        snippet=is_snippet,
        text=page.text if page else result.snippet,
        location=page.location if page else None,
        images=page.images if page else (),
    )


@dataclass(frozen=True, slots=True)
class Segment:
    """A stretch of a run's reads ranked against its own query, with its own source cap.

    A quick run's first round is ranked against the question; a two-step hop or a follow-up
    search adds a segment ranked against the search that found it, so its sources are not
    crowded out by pages about the first step."""

    start: int  # index of the segment's first read
    query: str
    max_sources: int


def build_segmented(
    reads: Sequence[Read], segments: Sequence[Segment], passages_per_source: int
) -> list[Source]:
    sources: list[Source] = []
    for i, segment in enumerate(segments):
        end = segments[i + 1].start if i + 1 < len(segments) else len(reads)
        limits = EvidenceLimits(segment.max_sources, passages_per_source)
        sources += build_sources(
            segment.query, reads[segment.start : end], limits, first_number=len(sources) + 1
        )
    return sources
