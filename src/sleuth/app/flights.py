"""Identical runs across processes: one process claims a request's run in the store and ships
its events to the store's log; every other process that gets the same request follows that log
instead of running the question again, and takes the run over when the owner's claim lapses
(its process died) or ends without a result (its run failed).

The claim is a lease the owner renews while it runs. A follower polls — for new events, then
for the claim — so no wake-up can be lost; the cache is read after every claim attempt, a won
one too: an owner caches its result before it ends its claim, so a claim won just after that
end finds the result instead of running the question again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from ..events import Event
from ..store.codec import event_from_wire, event_to_wire
from ..store.service import ServiceStore
from .beat import Beat
from .runs import RunLog, ends

FLIGHT_LEASE_S = 10.0  # a claim lapses this long after its owner's last renewal
POLL_S = 0.2  # how often a follower reads another process's log
SHIP_S = 0.25  # how often an owner writes its new events to the shared log


@dataclass(frozen=True, slots=True)
class Flight:
    ours: bool  # this process runs it
    body: bytes | None = None  # or the result is already cached


class Flights:
    def __init__(self, store: ServiceStore, clock: Callable[[], float]) -> None:
        self.store, self.clock = store, clock
        self._beats: dict[tuple[str, str], Beat] = {}

    async def claim(self, org: str, key: str, cache_key: str | None, ttl_s: float) -> Flight:
        """Claim the run of `key`, unless another process has it or (`cache_key` given) its
        result is already in the cache."""
        ours = await self.store.claim_flight(
            org, key, self.store.node, now=self.clock(), lease_s=FLIGHT_LEASE_S
        )
        body = None
        if cache_key is not None:
            found = await self.store.cached(org, cache_key, now=self.clock(), ttl_s=ttl_s)
            body = found.body if found is not None else None
        if body is not None:
            if ours:
                await self.store.end_flight(org, key, self.store.node)
            return Flight(False, body)
        if ours and (org, key) not in self._beats:  # this process's claim, kept alive
            self._beats[(org, key)] = Beat(
                lambda: self.store.claim_flight(
                    org, key, self.store.node, now=self.clock(), lease_s=FLIGHT_LEASE_S
                ),
                every_s=FLIGHT_LEASE_S / 3,
            )
        return Flight(ours)

    async def end(self, org: str, key: str) -> None:
        beat = self._beats.pop((org, key), None)
        if beat is not None:
            await beat.stop()
        await self.store.end_flight(org, key, self.store.node)

    async def follow(self, org: str, key: str, log: RunLog) -> bool:
        """Copy another process's run into `log` until it ends (True), or until its claim is
        free for the taking (False: the caller claims it and runs the question itself)."""
        while True:
            for index, text in await self.store.logged_events(org, key, len(log.events) - 1):
                if index != len(log.events):
                    continue  # a row this follower already has (or a gap that cannot be)
                event = event_from_wire(text)
                log.publish(event)
                if ends(event):
                    return True
            free = await self.store.claim_flight(
                org, key, self.store.node, now=self.clock(), lease_s=FLIGHT_LEASE_S
            )
            if free:
                return False
            await asyncio.sleep(POLL_S)

    def shipper(self, org: str, key: str) -> Shipper:
        return Shipper(self.store, self.clock, org, key)


class Shipper:
    """Writes a run's events to the shared log in batches (each event once, in order)."""

    def __init__(self, store: ServiceStore, clock: Callable[[], float], org: str, key: str) -> None:
        self.store, self.clock, self.org, self.key = store, clock, org, key
        self._pending: list[tuple[int, str]] = []
        self._count = 0
        self._last = 0.0

    def add(self, event: Event) -> None:
        self._pending.append((self._count, event_to_wire(event)))
        self._count += 1

    async def maybe_flush(self) -> None:
        now = asyncio.get_running_loop().time()
        if self._pending and now - self._last >= SHIP_S:
            await self.flush()

    async def flush(self) -> None:
        batch, self._pending = self._pending, []
        self._last = asyncio.get_running_loop().time()
        if batch:
            await self.store.log_events(self.org, self.key, batch, now=self.clock())
