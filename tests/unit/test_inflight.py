from __future__ import annotations

import asyncio

import pytest

from sleuth.inflight import InFlight


async def test_work_under_way_is_joined_not_started_again() -> None:
    started: list[str] = []
    go = asyncio.Event()

    async def work(name: str) -> str:
        started.append(name)
        await go.wait()
        return name

    flights = InFlight[str, str]()
    first, shared_first = flights.start("k", lambda: work("first"))
    second, shared_second = flights.start("k", lambda: work("second"))
    other, _ = flights.start("other", lambda: work("other"))
    assert (shared_first, shared_second) == (False, True) and second is first
    go.set()
    assert await asyncio.gather(first, other) == ["first", "other"]
    assert started == ["first", "other"] and len(flights) == 0  # finished work leaves


async def test_again_starts_new_work_that_later_callers_join() -> None:
    flights = InFlight[str, int]()
    go = asyncio.Event()

    async def work(n: int) -> int:
        await go.wait()
        return n

    old, _ = flights.start("k", lambda: work(1))
    new, shared = flights.start("k", lambda: work(2), again=True)
    joined, _ = flights.start("k", lambda: work(3))
    assert not shared and joined is new and new is not old
    go.set()
    assert await asyncio.gather(old, new) == [1, 2]
    assert len(flights) == 0  # the older work's end did not take the newer one's place away


async def test_a_caller_leaving_spoils_no_ones_wait_and_an_error_is_not_kept() -> None:
    flights = InFlight[str, str]()
    go = asyncio.Event()
    calls = 0

    async def failing() -> str:
        nonlocal calls
        calls += 1
        await go.wait()
        raise OSError("backend down")

    work, _ = flights.start("k", failing)
    leaving = asyncio.ensure_future(asyncio.shield(work))
    staying = asyncio.ensure_future(asyncio.shield(work))
    await asyncio.sleep(0)
    leaving.cancel()
    go.set()
    with pytest.raises(OSError, match="backend down"):
        await staying
    again, shared = flights.start("k", failing)
    assert not shared
    with pytest.raises(OSError, match="backend down"):
        await again
    assert calls == 2
