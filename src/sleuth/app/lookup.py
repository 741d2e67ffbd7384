"""Use cases smaller than a research run: search results filtered like a run's, the top ones
read with their query-relevant passages, and pages the caller names read for extraction.

They reuse the run's own pieces (the shared fetcher behind the address guard and page cache,
the parallel reader with its deadlines, the shared BM25 passage ranking), so a page read here
is read exactly as a research run would read it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

from ..errors import BlockedURLError
from ..events import Event
from ..fetch.domains import DomainFilteredFetcher, DomainPolicy
from ..pipeline.candidates import Candidate
from ..pipeline.evidence import Read, rank_passages
from ..pipeline.read import ReadLimits, read_all
from ..ports import Fetcher
from ..runtime import Tasks
from ..text import content_tokens
from ..types import Passage, ResearchRequest, SearchResult, Source

MAX_EXTRACT_URLS = 10


@dataclass(frozen=True, slots=True)
class ReadHit:
    """A search result, and when it was read, its best passages for the query."""

    result: SearchResult
    passages: tuple[Passage, ...] = ()
    relevance: float | None = None  # the best passage's BM25 score; None when not read
    skipped: str | None = None  # why it was not read, when that was tried


def _ignore(event: Event) -> None:
    return None


def filtered(results: Sequence[SearchResult], request: ResearchRequest) -> list[SearchResult]:
    """Results a run with the same request could use: allowed domains, not published before
    `since` (undated results are kept, as in a run)."""
    policy = DomainPolicy.from_lists(request.allow_domains, request.deny_domains)
    return [r for r in results if _allowed(r, policy) and _fresh(r, request.since)]


def _allowed(result: SearchResult, policy: DomainPolicy) -> bool:
    try:
        policy.check(result.url)
    except BlockedURLError:
        return False
    return True


def _fresh(result: SearchResult, since: date | None) -> bool:
    if since is None or not result.published:
        return True
    try:
        return date.fromisoformat(result.published[:10]) >= since
    except ValueError:
        return True


def guarded(fetcher: Fetcher, request: ResearchRequest) -> Fetcher:
    """The fetcher with the request's domain lists applied to every redirect's end too."""
    policy = DomainPolicy.from_lists(request.allow_domains, request.deny_domains)
    return DomainFilteredFetcher(fetcher, policy) if policy.active else fetcher


async def read_hits(
    query: str,
    results: Sequence[SearchResult],
    fetcher: Fetcher,
    *,
    passages: int = 3,
    deadline_s: float = 6.0,
) -> list[ReadHit]:
    """Read `results` in parallel under a quick round's deadlines and attach each read one's
    `passages` best passages for `query`, ranked in one index; order is kept."""
    candidates = [Candidate(r, 0.0, 1) for r in results]
    tasks = Tasks()
    try:
        limits = ReadLimits(deadline_s=deadline_s, settle_after=len(candidates))
        outcome = await read_all(candidates, fetcher, limits, _ignore, tasks)
    finally:
        await tasks.cancel()
    reads = [Read(c, outcome.pages.get(c.url)) for c in candidates]
    read = [r for r in reads if r.page is not None and r.page.text.strip()]
    ranked = dict(zip((id(r) for r in read), rank_passages(query, read), strict=True))
    hits = []
    for r in reads:
        best = ranked.get(id(r))
        if best is None:
            reason = outcome.failed.get(r.candidate.url) or "not read within the deadline"
            hits.append(ReadHit(_with_page(r), skipped=reason))
            continue
        kept = tuple(best[:passages])
        title = r.page.title if r.page is not None else ""
        hits.append(ReadHit(_with_page(r), kept, relevance(query, title, kept)))
    return hits


def relevance(query: str, title: str, passages: Sequence[Passage]) -> float:
    """How much of the query a read page says, from 0 to 1: the share of the query's content
    words in its best passage, a word only in the page's title counting half. BM25 cannot be
    this number: it ranks passages against the others read with them, and when every passage
    carries the query's words (three on-topic pages) each word's weight, hence every score, is
    0. This one does not depend on what else was read."""
    wanted = {_stem(w) for w in content_tokens(query)}
    if not wanted or not passages:
        return 0.0
    in_title = {_stem(w) for w in content_tokens(title)} & wanted
    best = 0.0
    for passage in passages:
        said = {_stem(w) for w in content_tokens(passage.text)} & wanted
        best = max(best, len(said) + 0.5 * len(in_title - said))
    return best / len(wanted)


def _stem(word: str) -> str:
    """`logs` and `log`, `retained` and `retain` as one word (enough for a coverage share)."""
    for suffix in ("ies", "s", "ed", "ing"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def _with_page(read: Read) -> SearchResult:
    """The result carrying its read page, so an answer can be written from it unread again."""
    result = read.candidate.result
    return replace(result, page=read.page) if read.page is not None else result


def url_results(urls: Sequence[str]) -> list[SearchResult]:
    """Pages the caller names, as results to read (they pass the same address guard)."""
    return [SearchResult(u, "", "", "extract", rank) for rank, u in enumerate(urls, start=1)]


def trace_values(data: Any, sources: Sequence[Source]) -> dict[str, list[int]]:
    """For each value the model filled in (`a.b[0]`), the numbers of the sources whose text
    contains it: an empty list marks a value no source states word for word."""
    texts = [(s.number, " ".join((s.text or " ".join(p.text for p in s.passages)).split()).lower())
             for s in sources]  # fmt: skip
    out: dict[str, list[int]] = {}
    for path, value in _leaves(data, ""):
        needle = " ".join(str(value).split()).lower()
        out[path] = [n for n, text in texts if needle and needle in text]
    return out


def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, f"{path}[{index}]")
    elif value is not None and not isinstance(value, bool):
        yield path, value
