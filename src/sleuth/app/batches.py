"""Batches for a service: an organization's questions enqueued on the PostgreSQL task queue
(`queue.py`) for `sleuth worker` processes, their progress, their records.

Available when the server has SLEUTH_DATABASE_URL and the queue extra; otherwise every batch
route answers 503 BATCHES_UNAVAILABLE saying what is missing. The schema is installed on first
use, once per process (and once across processes: the installers take an advisory lock).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from ..errors import BatchesUnavailable, NotFoundError
from ..extras import missing
from ..store.batches_pg import BatchStore, Progress
from .batch import Parsed


class Batches:
    def __init__(self, database_url: str | None) -> None:
        """Batches on the database of `database_url` (the application's, parsed once)."""
        self.url, self.why_not = database_url, ""
        if database_url is None:
            self.why_not = "batches need PostgreSQL: the server has no SLEUTH_DATABASE_URL"
        elif absent := missing("queue"):
            self.url = None
            self.why_not = f"batches need the queue extra ({', '.join(absent)} not installed)"
        self._store: BatchStore | None = None
        self._ready = asyncio.Lock()

    def check_available(self) -> None:
        if self.url is None:
            raise BatchesUnavailable(self.why_not)

    async def _open(self) -> tuple[str, BatchStore]:
        self.check_available()
        assert self.url is not None
        async with self._ready:
            if self._store is None:
                from .queue import prepare_schema

                await prepare_schema(self.url)
                self._store = await BatchStore(self.url).open()
        return self.url, self._store

    async def create(
        self, org: str, parsed: Sequence[Parsed], options: Mapping[str, Any]
    ) -> tuple[str, int]:
        from .queue import enqueue

        url, _ = await self._open()
        return await enqueue(url, org, parsed, options)

    async def progress(self, org: str, batch_id: str) -> Progress:
        _, store = await self._open()
        found = await store.progress(org, batch_id)
        if found is None:
            raise NotFoundError(f"no batch {batch_id!r}")
        return found

    async def records(self, org: str, batch_id: str) -> AsyncIterator[dict[str, Any]]:
        _, store = await self._open()
        async for _, record in store.records(org, batch_id):
            yield record

    async def aclose(self) -> None:
        if self._store is not None:
            await self._store.aclose()
            self._store = None
