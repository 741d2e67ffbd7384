"""Turn several queries' search results into one ordered list of candidates to read.

Reciprocal-rank fusion makes a page found by several queries rank higher; a per-site cap keeps
one site from filling every slot, and slots the cap leaves empty are back-filled in rank order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..types import SearchResult
from ..urls import normalize_url, site_of

RRF_K = 60


@dataclass(frozen=True, slots=True)
class Candidate:
    result: SearchResult
    score: float  # fused score, higher is better
    hits: int  # how many queries found it

    @property
    def url(self) -> str:
        return self.result.url


def fuse(result_lists: Sequence[Sequence[SearchResult]]) -> list[Candidate]:
    """Reciprocal-rank fusion over the lists; ties keep first-seen order."""
    by_key: dict[str, Candidate] = {}
    for results in result_lists:
        seen_here: set[str] = set()
        for position, result in enumerate(results, start=1):
            key = normalize_url(result.url)
            if key in seen_here:
                continue
            seen_here.add(key)
            gain = 1.0 / (RRF_K + position)
            known = by_key.get(key)
            if known is None:
                by_key[key] = Candidate(result, gain, 1)
            else:
                by_key[key] = replace(
                    known,
                    score=known.score + gain,
                    hits=known.hits + 1,
                    result=_richer(known.result, result),
                )
    return sorted(by_key.values(), key=lambda c: -c.score)


def _richer(a: SearchResult, b: SearchResult) -> SearchResult:
    """Keep the first result but borrow a longer snippet, a date or a scraped text from the
    second."""
    if len(b.snippet) > len(a.snippet):
        a = replace(a, snippet=b.snippet)
    if a.published is None and b.published:
        a = replace(a, published=b.published)
    if a.scraped is None and b.scraped:
        a = replace(a, scraped=b.scraped)
    return a


def cap_per_site(candidates: Sequence[Candidate], limit: int, per_site: int) -> list[Candidate]:
    """First `limit` candidates with at most `per_site` per site, back-filled in rank order.

    Pre-read results (local files, saved sources) are exempt from the site cap.
    """
    chosen: list[Candidate] = []
    overflow: list[Candidate] = []
    per: dict[str, int] = {}
    for cand in candidates:
        if cand.result.page is not None:
            chosen.append(cand)
            continue
        site = site_of(cand.url)
        if per.get(site, 0) < per_site:
            per[site] = per.get(site, 0) + 1
            chosen.append(cand)
        else:
            overflow.append(cand)
    web = [c for c in chosen if c.result.page is None][:limit]
    backfill = overflow[: max(0, limit - len(web))]
    keep = {id(c) for c in (*web, *backfill)}
    local = [c for c in chosen if c.result.page is not None]
    return local + [c for c in candidates if id(c) in keep]
