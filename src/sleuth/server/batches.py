"""Batches through the API: an organization's questions enqueued on the PostgreSQL task queue
(`app.queue`) for `sleuth worker` processes, their progress, their records.

Available when the server has SLEUTH_DATABASE_URL and the queue extra; otherwise every batch
route answers 503 BATCHES_UNAVAILABLE saying what is missing. The schema is installed on first
use, once per process (and once across processes: the installers take an advisory lock).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from ..app.batch import Parsed
from ..extras import missing
from ..settings import database_url
from ..store.batches_pg import BatchStore, Progress
from .errors import ApiError


class Batches:
    def __init__(self, url: str | None, why_not: str = "") -> None:
        self.url, self.why_not = url, why_not
        self._store: BatchStore | None = None
        self._ready = asyncio.Lock()

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Batches:
        url = database_url(env)
        if url is None:
            return cls(None, "batches need PostgreSQL: the server has no SLEUTH_DATABASE_URL")
        absent = missing("queue")
        if absent:
            return cls(None, f"batches need the queue extra ({', '.join(absent)} not installed)")
        return cls(url)

    def check_available(self) -> None:
        if self.url is None:
            raise ApiError(503, "BATCHES_UNAVAILABLE", self.why_not)

    async def _open(self) -> tuple[str, BatchStore]:
        self.check_available()
        assert self.url is not None
        async with self._ready:
            if self._store is None:
                from ..app.queue import prepare_schema

                await prepare_schema(self.url)
                self._store = await BatchStore(self.url).open()
        return self.url, self._store

    async def create(
        self, org: str, parsed: Sequence[Parsed], options: Mapping[str, Any]
    ) -> tuple[str, int]:
        from ..app.queue import enqueue

        url, _ = await self._open()
        return await enqueue(url, org, parsed, options)

    async def progress(self, org: str, batch_id: str) -> Progress:
        _, store = await self._open()
        found = await store.progress(org, batch_id)
        if found is None:
            raise ApiError(404, "NOT_FOUND", f"no batch {batch_id!r}")
        return found

    async def records(self, org: str, batch_id: str) -> AsyncIterator[dict[str, Any]]:
        _, store = await self._open()
        async for _, record in store.records(org, batch_id):
            yield record

    async def aclose(self) -> None:
        if self._store is not None:
            await self._store.aclose()
            self._store = None
