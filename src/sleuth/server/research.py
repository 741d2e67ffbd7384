"""Research as a service: the result cache, identical requests sharing one run, admission
against the node's run slots and the organization's quotas and running-run limit, metering.

The run itself is the application's (`Sleuth.run`): this module decides only whether a run is
needed, whether it may start, and what it cost. Identical requests in this process share one
task (waiters are shielded, so a client that goes away does not cancel the others' run); across
processes and replicas they share through a flight claim in the store, the waiter polling the
cache until the owner's result lands or its claim lapses.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, fields, replace
from typing import Any, TypeVar

from ..app.application import Sleuth, finish
from ..app.options import Prepared
from ..errors import DeadlineExceeded, SleuthError
from ..events import Event, Fetched, Searched
from ..store.service import Refused, ServiceStore, Spent
from .config import Clock, ServerConfig
from .errors import ApiError, from_sleuth
from .metrics import Metrics

T = TypeVar("T")
LEASE_MARGIN_S = 60.0  # a run's reservation outlives its time limit by this much
POLL_S = 0.2  # how often a waiter on another process's run looks for its result
# A flight claim lasts this long unless its owner renews it (every third of it while the run
# goes): when a replica dies mid-run, a waiter elsewhere takes the run over within this time.
FLIGHT_LEASE_S = 10.0


@dataclass(frozen=True, slots=True)
class Answer:
    body: dict[str, Any]  # the result JSON
    cached: bool  # from the cache (not metered); False for a run, shared or not


class Tally:
    """What a piece of work searched and read, from its events (or set when known): what it
    is metered by, and what a timed-out run's error reports."""

    def __init__(self) -> None:
        self.queries: list[str] = []
        self.searches = 0
        self.pages = 0

    def __call__(self, event: Event) -> None:
        if isinstance(event, Searched):
            self.searches += 1
            if event.query not in self.queries:
                self.queries.append(event.query)
        elif isinstance(event, Fetched) and not event.cached:
            self.pages += 1

    @property
    def spent(self) -> Spent:
        return Spent(self.searches, self.pages)


class Research:
    def __init__(
        self,
        app: Sleuth,
        store: ServiceStore,
        config: ServerConfig,
        clock: Clock,
        metrics: Metrics,
    ) -> None:
        self.app, self.store, self.config = app, store, config
        self.clock, self.metrics = clock, metrics
        self.node = store.node  # owns this process's flight claims (void when it dies)
        self.running = 0
        self._flights: dict[tuple[str, str], asyncio.Task[tuple[bytes, bool]]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()

    def prepare(self, org: str, values: dict[str, Any]) -> Prepared:
        merged = {**self.config.defaults, **values}
        if kb := merged.pop("kb", None):
            web = str(merged.get("search") or "duckduckgo")
            merged["search"] = f"kb:{kb}" if web == "none" else f"multi:kb:{kb},{web}"
        # Whatever searches a knowledge base searches this organization's, and no other's.
        merged["kb_owner"] = org
        prepared = self.app.prepare(merged.pop("query"), **merged)
        return replace(prepared, saving=replace(prepared.saving, org=org))

    async def answer(self, org: str, values: dict[str, Any], *, no_cache: bool) -> Answer:
        prepared = self.prepare(org, dict(values))
        key = fingerprint(prepared)
        if no_cache:
            return _answer(await self._fresh(org, prepared, key), False)
        hit = await self.store.cached(org, key, now=self.clock(), ttl_s=self.config.cache_ttl_s)
        if hit is not None:
            return await self._from_cache(org, hit)
        task = self._flights.get((org, key))
        if task is None:
            task = self._spawn(self._shared(org, prepared, key))
            self._flights[(org, key)] = task
            task.add_done_callback(lambda done: self._land(org, key, done))
        else:
            self.metrics.cache_hits.labels("shared").inc()
        body, cached = await asyncio.shield(task)
        return _answer(body, cached)

    async def _from_cache(self, org: str, body: bytes) -> Answer:
        self.metrics.cache_hits.labels("cache").inc()
        await self.store.count_cached(org, now=self.clock())
        return _answer(body, True)

    def _land(self, org: str, key: str, done: asyncio.Task[Any]) -> None:
        if self._flights.get((org, key)) is done:
            del self._flights[(org, key)]

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _shared(self, org: str, prepared: Prepared, key: str) -> tuple[bytes, bool]:
        """The one run of an identical request, or another process's result when it has it.

        The claim is a lease the owner renews while it runs; a waiter polls for the result
        (so no wake-up can be lost) and takes the run over when the lease lapses (the owner's
        process died) or the claim is released without a result (the owner's run failed).
        The cache is read after every claim attempt, a won one too: an owner caches its result
        before it ends its claim, so a claim won just after that end finds the result instead
        of running the question again (seen with two replicas: 42 runs for 41 questions)."""
        ttl = self.config.cache_ttl_s
        while True:
            claimed = await self.store.claim_flight(
                org, key, self.node, now=self.clock(), lease_s=FLIGHT_LEASE_S
            )
            hit = await self.store.cached(org, key, now=self.clock(), ttl_s=ttl)
            if hit is not None:
                if claimed:
                    await self.store.end_flight(org, key, self.node)
                await self._from_cache(org, hit)
                return hit, True
            if claimed:
                break
            await asyncio.sleep(POLL_S)
        heartbeat = asyncio.create_task(self._renew(org, key))
        try:
            return await self._fresh(org, prepared, key), False
        finally:
            heartbeat.cancel()
            await asyncio.gather(heartbeat, return_exceptions=True)
            await self.store.end_flight(org, key, self.node)

    async def _renew(self, org: str, key: str) -> None:
        """Keep this node's flight claim alive while its run goes."""
        while True:
            await asyncio.sleep(FLIGHT_LEASE_S / 3)
            try:
                await self.store.claim_flight(
                    org, key, self.node, now=self.clock(), lease_s=FLIGHT_LEASE_S
                )
            except SleuthError:  # the store hiccuped: the next beat tries again
                continue

    async def _fresh(self, org: str, prepared: Prepared, key: str) -> bytes:
        """Run once (if a node slot and the organization's quota allow), meter, cache."""
        result = await self.metered(
            org, _limit(prepared) + LEASE_MARGIN_S, lambda tally: self._run(prepared, tally)
        )
        body = json.dumps(result, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        await self.store.cache(org, key, body, now=self.clock())
        return body

    async def metered(self, org: str, lease_s: float, work: Callable[[Tally], Awaitable[T]]) -> T:
        """Do `work` in one of this node's run slots, admitted against the organization's
        quotas and running-run limit, and meter what its tally says it spent."""
        if self.running >= self.config.run_slots:
            raise ApiError(
                503,
                "SERVER_BUSY",
                "every run slot of this server is taken; retry shortly",
                retry_after=self.config.retry_after_s,
            )
        self.running += 1
        try:
            return await self._admitted(org, lease_s, work)
        finally:
            self.running -= 1

    async def _admitted(self, org: str, lease_s: float, work: Callable[[Tally], Awaitable[T]]) -> T:
        admission = await self.store.admit(
            org, now=self.clock(), lease_s=lease_s, max_running=self.config.org_runs
        )
        if isinstance(admission, Refused):
            raise self._refusal(admission)
        tally = Tally()
        try:
            return await work(tally)
        finally:
            if tally.searches or tally.pages:
                await self.store.settle(org, admission.reservation, tally.spent, now=self.clock())
            else:
                await self.store.release(admission.reservation)

    def _refusal(self, refused: Refused) -> ApiError:
        if refused.reason == "quota":
            self.metrics.quota_refusals.inc()
            message = f"the organization's monthly {refused.meter} quota is used up"
            return ApiError(402, "QUOTA_EXCEEDED", message)
        return ApiError(
            429,
            "RATE_LIMITED",
            "the organization already has its allowed number of runs going; retry shortly",
            retry_after=refused.retry_after,
        )

    async def _run(self, prepared: Prepared, tally: Tally) -> dict[str, Any]:
        depth = prepared.request.depth
        started, outcome = time.monotonic(), "failed"
        self.metrics.in_flight.inc()
        try:
            result = await finish(self.app.run(prepared), tally)
            outcome = "ok"
        except DeadlineExceeded as exc:
            outcome = "timeout"
            raise from_sleuth(exc, tally.queries) from exc
        except SleuthError as exc:
            raise from_sleuth(exc, tally.queries) from exc
        finally:
            self.metrics.in_flight.dec()
            self.metrics.run_seconds.labels(depth).observe(time.monotonic() - started)
            self.metrics.runs.labels(depth, outcome).inc()
        tally.searches, tally.pages = result.usage.searches, result.usage.pages_read
        return result.to_json()

    def pending(self) -> int:
        """Shared-run tasks not done yet (a metric: zero when idle)."""
        return sum(1 for task in self._tasks if not task.done())

    async def aclose(self) -> None:
        """Cancel runs still going (their clients are gone: the server is stopping)."""
        tasks = [t for t in self._tasks if not t.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)


def _answer(body: bytes, cached: bool) -> Answer:
    data = json.loads(body)
    data["cached"] = cached
    return Answer(data, cached)


def _limit(prepared: Prepared) -> float:
    return prepared.request.max_runtime_s or 150.0


def fingerprint(prepared: Prepared) -> str:
    """What makes two requests identical: the trimmed question, every run option with its
    default filled in (output from depth, sources cap...), the engine settings, the org."""
    request = prepared.request
    data: dict[str, Any] = {
        f.name: getattr(request, f.name) for f in fields(request) if f.name != "seeds"
    }
    data["question"] = request.question.strip()
    data["output"] = request.output_kind
    data["max_sources"] = request.source_cap
    data["settings"] = {
        f.name: getattr(prepared.settings, f.name)
        for f in fields(prepared.settings)
        if f.name != "env"
    }
    data["org"] = prepared.saving.org
    text = json.dumps(data, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
