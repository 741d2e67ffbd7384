"""Work under way, by key: whoever asks for what is already being done waits for it rather than
doing it again (a search on its way to the backend, a listing being read). A caller who leaves
spoils no one's wait; finished work leaves the table, and its error, once the callers waiting
have had it, is not remembered, so the next one asks again.

    searching = InFlight[str, list[Hit]]()
    work, shared = searching.start(key, lambda: backend.search(query))
    hits = await asyncio.shield(work)
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")


class InFlight(Generic[K, T]):
    def __init__(self) -> None:
        self._work: dict[K, asyncio.Future[T]] = {}

    def start(
        self, key: K, work: Callable[[], Awaitable[T]], *, again: bool = False
    ) -> tuple[asyncio.Future[T], bool]:
        """The work under way for `key` and True, or, if there is none (or `again` says not to
        join it), the work just started and False. Await it through `asyncio.shield`."""
        found = None if again else self._work.get(key)
        if found is not None:
            return found, True
        started = asyncio.ensure_future(work())
        self._work[key] = started
        started.add_done_callback(lambda done: self._finished(key, done))
        return started, False

    def _finished(self, key: K, done: asyncio.Future[T]) -> None:
        if self._work.get(key) is done:
            del self._work[key]
        if not done.cancelled():
            done.exception()  # seen: an error nobody waits for any more is not reported as lost

    def __len__(self) -> int:
        return len(self._work)
