"""The saved runs, as a server reaches them: every call runs in a worker thread, so a request
waiting on the disk (or on PostgreSQL) never holds the event loop that serves every other
request. The threads are their own, so a listing never queues behind the pages runs are
parsing in the default pool. The application wraps its session store once here; routes never
decide.

    record = await app.saved.get(session_id, org="acme")
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from ..recent import Recent

if TYPE_CHECKING:
    from ..store.records import Revision, SessionRecord, SessionSummary
    from ..store.sessions import SessionStore

T = TypeVar("T")
Filters = tuple[tuple[str, Any], ...]
LISTING_REUSE_S = 1.0
LISTINGS_KEPT = 256
_THREADS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="sleuth-saved")


class SavedRuns:
    def __init__(self, store: Callable[[], SessionStore]) -> None:
        self._store = store  # the application's, opened on first use
        # each listing by its filters, with the store's count of changes it was read at
        self._listed: Recent[Filters, tuple[tuple[SessionSummary, ...], int]] = Recent(
            LISTINGS_KEPT, ttl_s=LISTING_REUSE_S
        )
        self._listing: dict[Filters, tuple[int, asyncio.Future[Any]]] = {}  # being read

    async def _off_loop(self, call: Callable[[SessionStore], T]) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(_THREADS, lambda: call(self._store()))

    async def get(self, ref: str, *, org: str | None = None) -> SessionRecord:
        return await self._off_loop(lambda s: s.get(ref, org=org))

    async def summaries(self, **filters: Any) -> tuple[SessionSummary, ...]:
        """The listing; one made less than `LISTING_REUSE_S` ago with the same filters is
        reused while this process saved nothing meanwhile (another replica's new run shows
        within that second). One being read since the last save is waited for, not read again:
        under load, every save would otherwise start as many listings as are asked for."""
        key = tuple(sorted(filters.items()))
        now = self._changes()
        seen = self._listed.get(key)
        if seen is not None and seen[1] == now:
            return seen[0]
        reading = self._listing.get(key)
        if reading is None or reading[0] != now:

            def listing(store: SessionStore) -> tuple[tuple[SessionSummary, ...], int]:
                changes = store.changes  # read first: a save during the listing outdates it
                return store.list(**filters), changes

            reading = (now, asyncio.ensure_future(self._off_loop(listing)))
            self._listing[key] = reading
            reading[1].add_done_callback(lambda done: self._read(key, done))
        found: tuple[SessionSummary, ...]
        found, _ = await asyncio.shield(reading[1])  # one caller leaving spoils no one's read
        return found

    def _read(self, key: Filters, done: asyncio.Future[Any]) -> None:
        """Keep a finished listing for reuse (a failed one is forgotten: the next asks again)."""
        if self._listing.get(key, (0, None))[1] is done:
            del self._listing[key]
        if done.cancelled() or done.exception() is not None:
            return
        self._listed.put(key, done.result())

    def _changes(self) -> int:
        return self._store().changes

    async def revisions(self, ref: str) -> list[Revision]:
        return await self._off_loop(lambda s: s.revisions(ref))

    async def tag(self, ref: str, tags: str | Iterable[str]) -> tuple[str, ...]:
        return await self._off_loop(lambda s: s.tag(ref, tags))

    async def untag(self, ref: str, tags: str | Iterable[str]) -> tuple[str, ...]:
        return await self._off_loop(lambda s: s.untag(ref, tags))

    async def rm(self, refs: Iterable[str]) -> tuple[str, ...]:
        chosen = tuple(refs)
        return await self._off_loop(lambda s: s.rm(chosen))
