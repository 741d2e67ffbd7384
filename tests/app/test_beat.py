"""A beat (a lease's renewal, a flight's claim, stalled-job recovery) stops when its work ends,
even when its step swallows the cancellation: on Python 3.11 `asyncio.wait_for` can, and
psycopg's pool waits for a connection with it. The renewal loop that relied on cancellation
alone went on for ever and the run waiting for it never answered (issue 26's two replicas)."""

from __future__ import annotations

import asyncio

from sleuth.app.beat import Beat
from sleuth.errors import SleuthError


class Step:
    """Counts its calls; the `swallow`ing one takes a cancellation and returns as if done."""

    def __init__(self, *, swallow: bool = False, fail: bool = False) -> None:
        self.calls = 0
        self.swallow, self.fail = swallow, fail
        self.inside = asyncio.Event()
        self.thrice = asyncio.Event()

    async def __call__(self) -> None:
        self.calls += 1
        self.inside.set()
        if self.calls >= 3:
            self.thrice.set()
        if self.fail:
            raise SleuthError("the store blinked")
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            if not self.swallow:
                raise


async def test_a_beat_whose_step_swallows_the_cancellation_still_stops() -> None:
    step = Step(swallow=True)
    beat = Beat(step, every_s=0.01)
    await asyncio.wait_for(step.inside.wait(), 10)
    await asyncio.wait_for(beat.stop(), 10)  # the loop before: never returned
    assert step.calls == 1


async def test_a_beat_stops_between_steps_and_its_step_failing_does_not_end_it() -> None:
    step = Step(fail=True)
    beat = Beat(step, every_s=0.01)
    await asyncio.wait_for(step.thrice.wait(), 10)  # a SleuthError: the next beat tries again
    await asyncio.wait_for(beat.stop(), 10)
    calls = step.calls
    await asyncio.sleep(0.05)
    assert step.calls == calls
