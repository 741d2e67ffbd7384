"""The saved runs, as a server reaches them: every call runs in a worker thread, so a request
waiting on the disk (or on PostgreSQL) never holds the event loop that serves every other
request. The threads are their own, so a listing never queues behind the pages runs are
parsing in the default pool. The application wraps its session store once here; routes never
decide.

    record = await app.saved.get(session_id, org="acme")
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from ..inflight import InFlight
from ..recent import Recent

if TYPE_CHECKING:
    from ..store.records import Revision, SessionRecord, SessionSummary
    from ..store.sessions import SessionStore

T = TypeVar("T")
Filters = tuple[tuple[str, Any], ...]
LISTING_REUSE_S = 1.0  # a listing this old is read again, behind the answer it gives
LISTING_STALE_S = 10.0  # one this old is never given: the caller waits for a new read
LISTINGS_KEPT = 256
MERGEABLE = frozenset({"org", "limit"})  # filters a save can be matched against without a read
_THREADS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="sleuth-saved")


@dataclass(frozen=True, slots=True)
class Listing:
    found: tuple[SessionSummary, ...]
    change: int  # the store's count of this process's writes when the read began
    read_at: float  # time.monotonic() then


class SavedRuns:
    def __init__(self, store: Callable[[], SessionStore]) -> None:
        self._store = store  # the application's, opened on first use
        self._listed: Recent[Filters, Listing] = Recent(LISTINGS_KEPT)
        self._listing = InFlight[tuple[Filters, int], Listing]()  # being read, since a write

    async def _off_loop(self, call: Callable[[SessionStore], T]) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(_THREADS, lambda: call(self._store()))

    async def save(self, record: SessionRecord) -> str:
        return await self._off_loop(lambda s: s.save(record))

    async def get(self, ref: str, *, org: str | None = None) -> SessionRecord:
        return await self._off_loop(lambda s: s.get(ref, org=org))

    async def summaries(self, **filters: Any) -> tuple[SessionSummary, ...]:
        """The listing, from memory when it can be: a run this process saved since it was read
        is added to it (under the load of many runs, every save would otherwise send every
        listing back to the database). A listing older than `LISTING_REUSE_S` is answered and
        read again behind that answer, so another replica's new run shows about a second later;
        after a write of another kind (a tag, a removal) the listing is read again before it is
        given. Listings asked for while one is read wait for that read."""
        key = tuple(sorted(filters.items()))
        known = self._listed.get(key)
        current = None if known is None else self._brought_up(key, known, filters)
        if current is not None:
            age = time.monotonic() - current.read_at
            if age < LISTING_STALE_S:
                if age >= LISTING_REUSE_S:
                    self._reading(key, filters)
                return current.found
        reading = self._reading(key, filters)
        read = await asyncio.shield(reading)  # one caller leaving spoils no one's read
        return (self._brought_up(key, read, filters) or read).found

    def _brought_up(self, key: Filters, known: Listing, filters: dict[str, Any]) -> Listing | None:
        """`known` with the runs this process saved since its read, or None if it cannot be
        brought up to date without reading it again."""
        store = self._store()
        if known.change == store.changes:
            return known
        since = store.saved_since(known.change)
        if since is None or not set(filters) <= MERGEABLE:
            return None
        change, saved = since
        org = filters.get("org")
        added = [s for s in saved if org is None or s.org == org]
        runs = {s.id: s for s in (*known.found, *added)}.values()
        newest = sorted(runs, key=lambda s: (s.created_at, s.id), reverse=True)
        limit = filters.get("limit")
        current = Listing(tuple(newest[:limit] if limit is not None else newest), change,
                          known.read_at)  # fmt: skip
        self._listed.put(key, current)
        return current

    def _reading(self, key: Filters, filters: dict[str, Any]) -> asyncio.Future[Listing]:
        """The read of this listing under way since this process's last write, or a new one."""

        def listing(store: SessionStore) -> Listing:
            read_at = time.monotonic()
            change = store.changes  # read first: a save during the listing outdates it
            return Listing(store.list(**filters), change, read_at)

        reading, under_way = self._listing.start(
            (key, self._store().changes), lambda: self._off_loop(listing)
        )
        if not under_way:
            reading.add_done_callback(lambda done: self._read(key, done))
        return reading

    def _read(self, key: Filters, done: asyncio.Future[Listing]) -> None:
        """Keep a finished listing (a failed one is forgotten: the next asks again)."""
        if done.cancelled() or done.exception() is not None:
            return
        known = self._listed.get(key)
        read = done.result()
        if known is None or known.read_at <= read.read_at:
            self._listed.put(key, read)

    async def revisions(self, ref: str) -> list[Revision]:
        return await self._off_loop(lambda s: s.revisions(ref))

    async def tag(self, ref: str, tags: str | Iterable[str]) -> tuple[str, ...]:
        return await self._off_loop(lambda s: s.tag(ref, tags))

    async def untag(self, ref: str, tags: str | Iterable[str]) -> tuple[str, ...]:
        return await self._off_loop(lambda s: s.untag(ref, tags))

    async def rm(self, refs: Iterable[str]) -> tuple[str, ...]:
        chosen = tuple(refs)
        return await self._off_loop(lambda s: s.rm(chosen))
