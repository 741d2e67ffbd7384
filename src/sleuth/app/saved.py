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

if TYPE_CHECKING:
    from ..store.records import Revision, SessionRecord, SessionSummary
    from ..store.sessions import SessionStore

T = TypeVar("T")
_THREADS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="sleuth-saved")


class SavedRuns:
    def __init__(self, store: Callable[[], SessionStore]) -> None:
        self._store = store  # the application's, opened on first use

    async def _off_loop(self, call: Callable[[SessionStore], T]) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(_THREADS, lambda: call(self._store()))

    async def get(self, ref: str, *, org: str | None = None) -> SessionRecord:
        return await self._off_loop(lambda s: s.get(ref, org=org))

    async def summaries(self, **filters: Any) -> tuple[SessionSummary, ...]:
        return await self._off_loop(lambda s: s.list(**filters))

    async def revisions(self, ref: str) -> list[Revision]:
        return await self._off_loop(lambda s: s.revisions(ref))

    async def tag(self, ref: str, tags: str | Iterable[str]) -> tuple[str, ...]:
        return await self._off_loop(lambda s: s.tag(ref, tags))

    async def untag(self, ref: str, tags: str | Iterable[str]) -> tuple[str, ...]:
        return await self._off_loop(lambda s: s.untag(ref, tags))

    async def rm(self, refs: Iterable[str]) -> tuple[str, ...]:
        chosen = tuple(refs)
        return await self._off_loop(lambda s: s.rm(chosen))
