"""What bounds a run: its wall-clock limit (`Deadline`) and the tasks it owns (`Tasks`).

Every phase takes what is left of the deadline. Every task a run starts is created through its
`Tasks`, so a run that ends, fails or loses its consumer cancels all of them at once; no triage
or page read outlives the run that asked for it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Coroutine
from typing import Any, TypeVar

from .errors import DeadlineExceeded
from .events import Event

T = TypeVar("T")


class Deadline:
    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.stop = None if seconds is None else time.monotonic() + seconds

    def remaining(self) -> float | None:
        return None if self.stop is None else self.stop - time.monotonic()

    def cap(self, seconds: float) -> float:
        left = self.remaining()
        return seconds if left is None else max(0.0, min(seconds, left))

    def expired(self) -> DeadlineExceeded:
        return DeadlineExceeded(
            f"stopped at the max_runtime limit of {self.seconds:g} s", setting="max_runtime"
        )

    async def run(self, awaitable: Awaitable[T]) -> T:
        left = self.remaining()
        if left is not None and left <= 0:
            raise self.expired()
        try:
            return await asyncio.wait_for(awaitable, left)
        except TimeoutError:
            raise self.expired() from None

    async def guard(self, stream: AsyncIterator[Event]) -> AsyncIterator[Event]:
        """Re-yield a stream's events, stopping it with DeadlineExceeded when time runs out."""
        async for item in self._guarded(stream):
            yield item

    async def guard_text(self, stream: AsyncIterator[str]) -> AsyncIterator[str]:
        async for item in self._guarded(stream):
            yield item

    async def _guarded(self, stream: AsyncIterator[T]) -> AsyncIterator[T]:
        try:
            while True:
                try:
                    event = await self.run(anext(stream))
                except StopAsyncIteration:
                    return
                yield event
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()


class Tasks:
    """The tasks one run started; `cancel()` stops every one still running and waits for it."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coro: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    @property
    def running(self) -> int:
        return sum(1 for t in self._tasks if not t.done())

    async def cancel(self) -> None:
        pending = [t for t in self._tasks if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
