"""One search-and-read round, and the evidence a run accumulates across rounds.

A round searches its queries (included files first, then the web backend, then the fallback
backend if nothing at all was found), fuses the results, drops URLs already considered, orders
the rest by source authority, caps them per site, applies the domain lists, reads them under the
round's deadlines, drops pages older than `--since` and near-duplicates of pages already kept.
Quick mode runs one to three rounds; deep mode runs one per critic iteration.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from ..errors import BlockedURLError, NoSourcesError, SearchError
from ..events import (
    Emit,
    Event,
    FetchSkipped,
    NearDuplicate,
    Notice,
    ReadStarted,
    SearchDegraded,
    Searched,
)
from ..fetch.domains import DomainPolicy
from ..ports import Fetcher, SearchBackend, SearchQuery
from ..runtime import Tasks
from ..types import Page, ResearchRequest, SearchResult
from ..urls import normalize_url
from .candidates import Candidate, cap_per_site, fuse
from .dedupe import NearDuplicates
from .evidence import Read, Segment
from .read import ReadLimits, ReadOutcome, read_all
from .trust import check_mode, order_by_authority


@dataclass(frozen=True, slots=True)
class Backends:
    search: SearchBackend
    fetcher: Fetcher
    include: SearchBackend | None = None
    fallback: SearchBackend | None = None


@dataclass(frozen=True, slots=True)
class RoundLimits:
    candidates: int = 10
    read_deadline_s: float = 6.0
    settle_after: int = 3
    settle_wait_s: float = 0.7


@dataclass(slots=True)
class Gathering:
    """Everything a run has searched and read so far."""

    request: ResearchRequest
    reads: list[Read] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    queries: list[str] = field(default_factory=list)
    causes: list[str] = field(default_factory=list)  # why a run may end with no sources
    search_failures: list[SearchError] = field(default_factory=list)
    results_found: int = 0  # search results of every round, before anything is read
    searches: int = 0
    search_ms: int = 0
    read_ms: int = 0
    pages_read: int = 0
    dupes: NearDuplicates | None = None
    segments: list[Segment] = field(default_factory=list)

    def __post_init__(self) -> None:
        threshold = self.request.dedupe_threshold
        self.dupes = NearDuplicates(threshold) if threshold is not None else None


async def run_round(
    backends: Backends,
    gathering: Gathering,
    queries: Sequence[str],
    limits: RoundLimits,
    emit: Emit,
    tasks: Tasks,
    seeds: Sequence[SearchResult] = (),
) -> None:
    """Search `queries`, read what is new, and add it to `gathering`."""
    gathering.queries.extend(q for q in queries if q not in gathering.queries)
    lists = await search_round(backends, gathering, queries, emit)
    if seeds:
        lists.insert(0, list(seeds))
    candidates = choose(lists, gathering, limits)
    allowed = filter_domains(candidates, gathering, emit)
    await read_round(backends.fetcher, allowed, gathering, limits, emit, tasks)


async def search_round(
    backends: Backends, gathering: Gathering, queries: Sequence[str], emit: Emit
) -> list[list[SearchResult]]:
    local: list[list[SearchResult]] = []
    if backends.include is not None:
        local = await search_all(backends.include, queries, gathering, emit)
    lists = await search_all(backends.search, queries, gathering, emit)
    if not any(lists) and not any(local) and backends.fallback is not None:
        failed = [str(e) for e in gathering.search_failures]
        what = f"search failed ({'; '.join(failed)})" if failed else "search found no results"
        emit(Notice(f"{what}; retrying through the fallback backend {backends.fallback.name}"))
        lists = await search_all(backends.fallback, queries, gathering, emit)
    return local + lists


async def search_all(
    backend: SearchBackend, queries: Sequence[str], gathering: Gathering, emit: Emit
) -> list[list[SearchResult]]:
    request = gathering.request

    async def one(q: str) -> tuple[list[SearchResult], SearchError | None, int]:
        started = time.monotonic()
        query = SearchQuery(q, request.max_results, request.since, request.search_lang, report=emit)
        try:
            found, error = await backend.search(query), None
        except SearchError as exc:
            found, error = [], exc
        return found, error, int((time.monotonic() - started) * 1000)

    outcomes = await asyncio.gather(*(one(q) for q in queries))
    lists = []
    for q, (found, error, ms) in zip(queries, outcomes, strict=True):
        gathering.searches += 1
        gathering.search_ms += ms
        if error is not None:
            gathering.search_failures.append(error)
            gathering.causes.append(_named(backend.name, str(error)))
            emit(SearchDegraded(backend.name, str(error)))
        else:
            gathering.results_found += len(found)
            emit(Searched(q, backend.name, len(found), ms))
        lists.append(found)
    return lists


def _named(name: str, message: str) -> str:
    """`name: message`, unless the message already starts with the backend's name."""
    return message if message.startswith(f"{name}:") else f"{name}: {message}"


def choose(
    lists: list[list[SearchResult]], gathering: Gathering, limits: RoundLimits
) -> list[Candidate]:
    """New candidates for this round's fetch slots: fused, authority-ordered, site-capped."""
    fresh = [c for c in fuse(lists) if normalize_url(c.url) not in gathering.seen]
    mode = check_mode(gathering.request.source_authority)
    ordered = order_by_authority(fresh, key_url=lambda c: c.url, mode=mode)
    chosen = cap_per_site(ordered, limits.candidates, gathering.request.per_site)
    gathering.seen.update(normalize_url(c.url) for c in chosen)
    return chosen


def filter_domains(
    candidates: list[Candidate], gathering: Gathering, emit: Emit
) -> list[Candidate]:
    """The candidates the domain lists allow; each refusal is emitted."""
    policy = DomainPolicy.from_lists(
        gathering.request.allow_domains, gathering.request.deny_domains
    )
    allowed: list[Candidate] = []
    for cand in candidates:
        try:
            if cand.result.page is None:
                policy.check(cand.url)
        except BlockedURLError as exc:
            emit(FetchSkipped(cand.url, exc.reason, exc.cause))
            gathering.causes.append(f"{cand.url}: {exc.reason}")
            continue
        allowed.append(cand)
    return allowed


async def read_round(
    fetcher: Fetcher,
    candidates: list[Candidate],
    gathering: Gathering,
    limits: RoundLimits,
    emit: Emit,
    tasks: Tasks,
) -> None:
    started = time.monotonic()
    request = gathering.request
    read_limits = ReadLimits(
        limits.read_deadline_s, limits.settle_after, limits.settle_wait_s, request.concurrency
    )
    to_fetch = [c for c in candidates if c.result.page is None]
    emit(ReadStarted(len(to_fetch)))
    outcome = await read_all(to_fetch, fetcher, read_limits, emit, tasks)
    gathering.read_ms += int((time.monotonic() - started) * 1000)
    gathering.pages_read += len(outcome.pages)
    gathering.causes.extend(f"{url}: {reason}" for url, reason in outcome.failed.items())
    fresh = [_read_for(c, outcome) for c in candidates if c.url not in outcome.blocked]
    for event in await asyncio.to_thread(keep_reads, fresh, gathering):
        emit(event)


def _read_for(cand: Candidate, outcome: ReadOutcome) -> Read:
    page = cand.result.page or outcome.pages.get(cand.url) or _scraped_page(cand, outcome)
    return Read(cand, page)


def _scraped_page(cand: Candidate, outcome: ReadOutcome) -> Page | None:
    """The search service's own scrape of a page Sleuth failed to read (a 403 to its client, a
    page of scripts, an error) - never of one its guard or domain lists refused, nor one left
    unread at the deadline (its address was not checked)."""
    text = (cand.result.scraped or "").strip()
    if not text or cand.url not in outcome.failed or cand.url in outcome.blocked:
        return None
    fetched_at = datetime.now(UTC).isoformat(timespec="seconds")
    title = cand.result.title or cand.url
    return Page(cand.url, title, text, fetched_at, "text/markdown", published=None)


def keep_reads(reads: list[Read], gathering: Gathering) -> list[Event]:
    """Add reads to the gathering unless redirected into a denied domain, stale (--since), or a
    near-duplicate of a page already kept; each refusal becomes an event."""
    policy = DomainPolicy.from_lists(
        gathering.request.allow_domains, gathering.request.deny_domains
    )
    events: list[Event] = []
    for read in reads:
        refusal = _refusal(read, gathering, policy)
        if refusal is None:
            gathering.reads.append(read)
        else:
            events.append(refusal)
    return events


def _refusal(read: Read, gathering: Gathering, policy: DomainPolicy) -> Event | None:
    url = read.candidate.url
    redirected = read.page.final_url if read.page else None
    if redirected and policy.active:
        try:
            policy.check(redirected)
        except BlockedURLError as exc:
            return FetchSkipped(url, f"redirected: {exc.reason}", exc.cause)
    since = gathering.request.since
    published = (read.page.published if read.page else None) or read.candidate.result.published
    if since is not None and is_before(published, since):
        return FetchSkipped(url, f"published {published}, before {since} (since)", "stale")
    if read.page is not None and gathering.dupes is not None:
        copy_of = _duplicate_of(read, gathering)
        if copy_of is not None:
            return NearDuplicate(url, copy_of)
    return None


def _duplicate_of(read: Read, gathering: Gathering) -> str | None:
    assert read.page is not None and gathering.dupes is not None
    if read.anchored:  # included files and saved sources are anchors, never dropped
        gathering.dupes.keep(read.page.text)
        return None
    index = gathering.dupes.add_unless_duplicate(read.page.text)
    if index is None:
        return None
    kept = [r for r in gathering.reads if r.page is not None]
    return kept[index].candidate.url if index < len(kept) else "an earlier source"


def is_before(published: str | None, since: date) -> bool:
    """True when a known publication date is before `since`; undated pages are kept. A year
    ("2007") or a month ("2007-05") is before `since` only when all of it is."""
    if not published:
        return False
    try:
        return last_day(published) < since
    except ValueError:
        return False


def last_day(published: str) -> date:
    """The last day a (possibly partial) ISO date can mean: "2007" -> 2007-12-31."""
    if len(published) == 4:
        return date(int(published), 12, 31)
    if len(published) == 7:
        year, month = int(published[:4]), int(published[5:7])
        return date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)
    return date.fromisoformat(published[:10])


def nothing_found(gathering: Gathering) -> NoSourcesError:
    """Why a run has no sources, in words: the search could not reach its services (no network),
    was throttled, failed, found no results, or found pages none of which could be used."""
    if gathering.results_found:
        return NoSourcesError(_listed("no sources found: ", gathering.causes), cause="unread")
    failures = [leaf for e in gathering.search_failures for leaf in e.leaves()]
    answered = gathering.searches - len(gathering.search_failures)
    if not failures:
        return NoSourcesError("search found no results for the question", cause="no_results")
    names = list(dict.fromkeys(f.backend or "search" for f in failures))
    if answered == 0 and all(f.cause == "unreachable" for f in failures):
        message = f"no network: could not reach {' or '.join(names)}"
        return NoSourcesError(message, cause="unreachable")
    if answered == 0 and all(f.cause == "rate_limited" for f in failures):
        message = f"search is rate-limited: {' and '.join(names)} refused to answer for now"
        return NoSourcesError(message, cause="rate_limited")
    messages = list(dict.fromkeys(str(f) for f in failures))
    tail = "; the other searches found no results" if answered else ""
    return NoSourcesError(_listed("search failed: ", messages) + tail, cause="search_failed")


def _listed(prefix: str, items: list[str], limit: int = 8) -> str:
    more = f" (and {len(items) - limit} more)" if len(items) > limit else ""
    return prefix + "; ".join(items[:limit]) + more
