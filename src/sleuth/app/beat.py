"""A step repeated every few seconds while some work goes on (renewing a reservation's lease,
a flight's claim, looking for stalled jobs), and stopped when the work ends.

Stopping does not rest on the task's cancellation alone: what a step awaits can swallow it (on
Python 3.11 `asyncio.wait_for` can, when the cancellation comes as the future it waits on
completes, and psycopg's pool waits for a connection with it). A run's lease renewal whose
cancellation was swallowed went on renewing for ever, and the run, waiting for it to end, never
answered (one request of 100 in 1 of 5 to 14 runs of `tests/server/test_replicas.py`). So the
loop also looks at a flag after every await.

    beat = Beat(lambda: store.renew(reservation, now=clock(), lease_s=30), every_s=10)
    try:
        ...  # the work
    finally:
        await beat.stop()
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from ..errors import SleuthError


class Beat:
    def __init__(self, step: Callable[[], Awaitable[object]], *, every_s: float) -> None:
        self._stopped = False
        self._task = asyncio.create_task(self._run(step, every_s))

    async def _run(self, step: Callable[[], Awaitable[object]], every_s: float) -> None:
        while not self._stopped:
            await asyncio.sleep(every_s)
            if self._stopped:
                return
            with contextlib.suppress(SleuthError):  # a store hiccup: the next beat tries again
                await step()

    async def stop(self) -> None:
        """Stop the beat and wait for its step in progress, if any, to end."""
        self._stopped = True
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)
