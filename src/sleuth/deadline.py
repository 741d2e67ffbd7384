"""The run's wall-clock limit (--max-runtime): every phase takes what is left."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable
from typing import TypeVar

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
        return DeadlineExceeded(f"stopped at the --max-runtime limit of {self.seconds:g} s")

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
