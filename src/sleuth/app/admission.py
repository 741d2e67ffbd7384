"""Admission: whether a piece of work may start now on this node for this organization, and
what it cost once it ends.

In order, cheapest first, so a request that will be refused is refused at once and never holds
what another organization could use: the organization's per-minute request rate, its running
work on this node against its limit, a slot of this node for the kind of work (research runs
and cheap lookups have separate pools), then the store's atomic check of the organization's
quotas and running work across every replica, which reserves what the work may spend. The
reservation is settled with what the work's tally counted when it ends, or released unspent.
"""

from __future__ import annotations

import math
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Literal, Protocol

from ..errors import QuotaExceeded, RateLimited, ServerBusy
from ..events import Done, Event, Fetched, Searched
from ..store.service import ONE_SEARCH, Allowance, QuotaStore, Refused
from ..store.service import Spent as Spent  # what work may spend and spent: faces name it
from .beat import Beat
from .caller import Caller

Kind = Literal["run", "light"]
LEASE_S = 15.0  # a reservation lapses this long after its process last renewed it
Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class Policy:
    """How much one node and one organization may do at once (`sleuth serve`'s settings)."""

    run_slots: int = 4  # research runs, steered stages, model calls at once on this node
    light_slots: int = 64  # searches and other work that reads no page, at once
    org_runs: int | None = 2  # runs at once per organization across replicas
    org_rate: int | None = None  # requests a minute per organization
    result_ttl_s: float = 600.0  # identical requests within this are answered from the cache
    retry_after_s: float = 1.0  # the wait a refusal suggests when nothing better is known
    models: tuple[str, ...] = ()  # models a request may name besides the operator's
    endpoints: tuple[str, ...] = ()  # model endpoints a request may pick (with the server's key)


class Observer(Protocol):
    """What the service reports as it goes (the server's Prometheus metrics implement it)."""

    def started(self, kind: str) -> None: ...

    def finished(self, kind: str, depth: str, outcome: str, seconds: float) -> None: ...

    def hit(self, how: Literal["cache", "shared"]) -> None: ...

    def refused(self, code: str) -> None: ...


class Unobserved:
    def started(self, kind: str) -> None:
        return None

    def finished(self, kind: str, depth: str, outcome: str, seconds: float) -> None:
        return None

    def hit(self, how: Literal["cache", "shared"]) -> None:
        return None

    def refused(self, code: str) -> None:
        return None


class Tally:
    """What a piece of work searched, read and spent on models, from its events (or set when
    known): what it is metered by, and what a run stopped at its time limit reports it
    searched."""

    def __init__(self) -> None:
        self.queries: list[str] = []
        self.searches = 0
        self.pages = 0
        self.cost_usd = 0.0  # model spending, from the run's result (unpriced models: 0)
        self.allowance = Allowance()  # what the work may spend of the org's quotas

    def __call__(self, event: Event) -> None:
        if isinstance(event, Searched):
            self.searches += 1
            if event.query not in self.queries:
                self.queries.append(event.query)
        elif isinstance(event, Fetched) and not event.cached:
            self.pages += 1
        elif isinstance(event, Done):
            self.cost_usd = event.result.usage.cost_usd or 0.0

    @property
    def spent(self) -> Spent:
        return Spent(self.searches, self.pages, self.cost_usd)


class Admission:
    def __init__(self, store: QuotaStore, policy: Policy, clock: Clock, observer: Observer):
        self.store, self.policy, self.clock, self.observer = store, policy, clock, observer
        self.busy: dict[Kind, int] = {"run": 0, "light": 0}
        self._org_busy: dict[str, int] = {}
        # Work holding a slot (its org, kind and start), and how long work of each kind
        # usually takes: what a refusal's Retry-After is estimated from.
        self._holders: dict[object, tuple[str, Kind, float]] = {}
        self._typical: dict[Kind, float] = {"run": policy.retry_after_s, "light": 0.0}
        self.settled = 0  # work metered since start (a usage report made before is out of date)

    async def count_request(self, caller: Caller) -> None:
        """One request against the organization's per-minute limit (when one is set)."""
        limit = self.policy.org_rate
        if limit is None:
            return
        wait = await self.store.hit_rate(caller.org, now=self.clock(), per_minute=limit)
        if wait is not None:
            self.observer.refused(RateLimited.code)
            message = f"the organization's limit of {limit} requests a minute is reached"
            raise RateLimited(message, retry_after=wait)

    @asynccontextmanager
    async def slot(
        self, caller: Caller, kind: Kind, want: Spent = ONE_SEARCH
    ) -> AsyncIterator[Tally]:
        """Hold a slot for work of `kind` that may spend up to `want`; yields the tally the
        work fills in (with the allowance the quotas leave it), settled when the block ends.
        Raises the refusal (QuotaExceeded, RateLimited, ServerBusy)."""
        org = caller.org
        self._check_org(org, kind)
        self._check_node(kind)
        self.busy[kind] += 1
        if kind == "run":
            self._org_busy[org] = self._org_busy.get(org, 0) + 1
        token, started = object(), time.monotonic()
        self._holders[token] = (org, kind, started)
        try:
            admission = await self.store.admit(
                org,
                now=self.clock(),
                lease_s=LEASE_S,
                max_running=self._org_limit(kind),
                want=want,
                run=kind == "run",
            )
            if isinstance(admission, Refused):
                raise self._refusal(admission, org)
            tally = Tally()
            tally.allowance = admission.allowance
            reservation = admission.reservation
            # Kept alive while the work goes: a process that dies stops renewing, and what it
            # held is free again within LEASE_S.
            renewing = Beat(
                lambda: self.store.renew(reservation, now=self.clock(), lease_s=LEASE_S),
                every_s=LEASE_S / 3,
            )
            try:
                yield tally
            finally:
                await renewing.stop()
                await self._settle(org, reservation, tally)
        finally:
            del self._holders[token]
            self._learn(kind, time.monotonic() - started)
            self.busy[kind] -= 1
            if kind == "run":
                self._org_busy[org] -= 1
                if not self._org_busy[org]:
                    del self._org_busy[org]

    def _org_limit(self, kind: Kind) -> int | None:
        return self.policy.org_runs if kind == "run" else None

    def _check_org(self, org: str, kind: Kind) -> None:
        limit = self._org_limit(kind)
        if limit is not None and self._org_busy.get(org, 0) >= limit:
            self.observer.refused(RateLimited.code)
            raise RateLimited(
                "the organization already has its allowed number of runs going; retry shortly",
                retry_after=self._wait(kind, org),
            )

    def _learn(self, kind: Kind, seconds: float) -> None:
        """How long work of `kind` takes, as a moving average of the latest."""
        self._typical[kind] = 0.8 * self._typical[kind] + 0.2 * seconds

    def _wait(self, kind: Kind, org: str | None = None) -> float:
        """When a slot of `kind` (of `org`'s, if given) should free: the soonest expected end
        of the work holding one, by how long such work usually takes; never under the
        policy's floor."""
        now, typical = time.monotonic(), self._typical[kind]
        ends = [
            typical - (now - started)
            for holder, held, started in self._holders.values()
            if held == kind and (org is None or holder == org)
        ]
        return max(self.policy.retry_after_s, min(ends, default=0.0))

    def _check_node(self, kind: Kind) -> None:
        slots = self.policy.run_slots if kind == "run" else self.policy.light_slots
        if self.busy[kind] >= slots:
            self.observer.refused(ServerBusy.code)
            what = "run slot" if kind == "run" else "request slot"
            raise ServerBusy(
                f"every {what} of this server is taken; retry shortly",
                retry_after=self._wait(kind),
            )

    def _refusal(self, refused: Refused, org: str) -> QuotaExceeded | RateLimited:
        if refused.reason == "quota":
            self.observer.refused(QuotaExceeded.code)
            message = f"the organization's monthly {refused.meter} quota is used up"
            return QuotaExceeded(message, meter=refused.meter)
        self.observer.refused(RateLimited.code)
        if refused.reason == "held":
            message = (
                f"what is left of the organization's monthly {refused.meter} quota is held by "
                "its runs in progress; retry when they end"
            )
            return RateLimited(message, retry_after=self._wait("run", org))
        return RateLimited(
            "the organization already has its allowed number of runs going; retry shortly",
            retry_after=max(self.policy.retry_after_s, math.ceil(refused.retry_after)),
        )

    async def _settle(self, org: str, reservation: str, tally: Tally) -> None:
        self.settled += 1
        if tally.searches or tally.pages or tally.cost_usd:
            await self.store.settle(org, reservation, tally.spent, now=self.clock())
        else:
            await self.store.release(reservation)
