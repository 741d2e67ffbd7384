"""Runs watched as they happen: the SSE streams and MCP over HTTP follow one live run each.

A live run is an engine run (`Sleuth.run`) admitted like any other research (a node run slot,
the organization's quotas and running-run limit), whose events are kept in order and handed to
every follower from the first one, so a client that joins an identical request in flight sees
the whole run. When its last follower goes away (a closed connection, a cancelled tool call),
the run is cancelled with every task it started; while another follower remains, it goes on.
A finished run's result lands in the same cache as the JSON route's, and a request the cache
can answer gets that result at once (`cached: true`).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..app.options import Prepared
from ..errors import DeadlineExceeded, SleuthError
from ..events import Done, Event, Failed
from ..store.codec import result_from_json
from .errors import ApiError
from .research import LEASE_MARGIN_S, Tally, fingerprint

if TYPE_CHECKING:
    from .state import State

Key = tuple[str, str]  # (organization, request fingerprint)


@dataclass(eq=False)
class LiveRun:
    """One run's events so far; followers read them from the start and wait for more."""

    key: Key
    events: list[Event] = field(default_factory=list)
    closed: bool = False  # no more events will come
    followers: int = 0
    admitted: asyncio.Future[None] = field(default_factory=asyncio.Future)
    task: asyncio.Task[None] | None = None
    _wake: asyncio.Event = field(default_factory=asyncio.Event)

    def publish(self, event: Event) -> None:
        self.events.append(event)
        self._notify()

    def close(self) -> None:
        self.closed = True
        self._notify()

    def _notify(self) -> None:
        self._wake.set()
        self._wake = asyncio.Event()

    async def follow(self) -> AsyncIterator[Event]:
        at = 0
        while True:
            wake = self._wake
            if at < len(self.events) and (self.closed or not _ends(self.events[at])):
                at += 1
                yield self.events[at - 1]
            elif self.closed and at >= len(self.events):
                return
            else:
                # The last event waits for the run to close: by the time a follower has the
                # answer, the run's slot and the organization's running count are released,
                # so a client's next request is never refused by its own finished one.
                await wake.wait()


class Following:
    """A follower's hold on a live run: its events, and `leave()` when the follower is gone
    (the run is cancelled when nobody follows it any more)."""

    def __init__(self, runs: LiveRuns, live: LiveRun) -> None:
        self._runs, self.live = runs, live
        self._left = False
        live.followers += 1

    def events(self) -> AsyncIterator[Event]:
        return self.live.follow()

    def leave(self) -> None:
        if not self._left:
            self._left = True
            self._runs.left(self.live)


class LiveRuns:
    def __init__(self, state: State) -> None:
        self.state = state
        self._running: dict[Key, LiveRun] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def follow(self, org: str, prepared: Prepared, *, no_cache: bool = False) -> Following:
        """Follow the run of this request: the cache's answer, the identical run in flight, or
        a new one once admitted (an ApiError when the node or the organization refuses it)."""
        key = (org, fingerprint(prepared))
        if not no_cache:
            cached = await self._cached(key)
            if cached is not None:
                return Following(self, cached)
        live = self._running.get(key)
        if live is None:
            live = self._start(key, prepared)
        else:
            self.state.metrics.cache_hits.labels("shared").inc()
        following = Following(self, live)
        try:
            await asyncio.shield(live.admitted)
        except BaseException:
            following.leave()
            raise
        return following

    async def _cached(self, key: Key) -> LiveRun | None:
        org, fp = key
        state = self.state
        body = await state.store.cached(org, fp, now=state.clock(), ttl_s=state.config.cache_ttl_s)
        if body is None:
            return None
        state.metrics.cache_hits.labels("cache").inc()
        await state.store.count_cached(org, now=state.clock())
        data = json.loads(body)
        data["cached"] = True
        live = LiveRun(key)
        live.admitted.set_result(None)
        live.publish(Done(result_from_json(data), run_id=f"cache-{fp[:12]}", seq=1))
        live.close()
        return live

    def _start(self, key: Key, prepared: Prepared) -> LiveRun:
        live = LiveRun(key)
        live.admitted.add_done_callback(lambda f: f.cancelled() or f.exception())
        self._running[key] = live
        live.task = asyncio.create_task(self._run(live, prepared))
        self._tasks.add(live.task)
        live.task.add_done_callback(self._tasks.discard)
        return live

    def left(self, live: LiveRun) -> None:
        live.followers -= 1
        if live.followers <= 0 and not live.closed and live.task is not None:
            self._running.pop(live.key, None)  # a new identical request starts afresh
            live.task.cancel()

    async def _run(self, live: LiveRun, prepared: Prepared) -> None:
        org = live.key[0]
        lease = (prepared.request.max_runtime_s or 150.0) + LEASE_MARGIN_S
        try:
            await self.state.research.metered(org, lease, lambda t: self._watch(live, prepared, t))
        except ApiError as exc:  # refused before it started
            if not live.admitted.done():
                live.admitted.set_exception(exc)
        finally:
            if self._running.get(live.key) is live:
                del self._running[live.key]
            if not live.admitted.done():
                live.admitted.cancel()
            live.close()

    async def _watch(self, live: LiveRun, prepared: Prepared, tally: Tally) -> None:
        """The run itself, inside its slot: publish each event, meter it, cache its result."""
        live.admitted.set_result(None)
        metrics, depth = self.state.metrics, prepared.request.depth
        started, outcome = time.monotonic(), "cancelled"
        metrics.in_flight.inc()
        try:
            async with aclosing(self.state.app.run(prepared)) as events:  # type: ignore[type-var]
                async for event in events:
                    tally(event)
                    if isinstance(event, Done):
                        outcome = "ok"
                        await self._cache(live.key, event, tally)
                    elif isinstance(event, Failed):
                        timed_out = isinstance(event.exception, DeadlineExceeded)
                        outcome = "timeout" if timed_out else "failed"
                    live.publish(event)
        except SleuthError as exc:
            # Raised before the run's first event (an unknown search backend): its followers
            # get it as the run's failure, worded and not retryable, instead of a bare end.
            outcome = "failed"
            live.publish(Failed.of(exc))
        finally:
            metrics.in_flight.dec()
            metrics.run_seconds.labels(depth).observe(time.monotonic() - started)
            metrics.runs.labels(depth, outcome).inc()

    async def _cache(self, key: Key, done: Done, tally: Tally) -> None:
        org, fp = key
        result = done.result
        tally.searches, tally.pages = result.usage.searches, result.usage.pages_read
        body = json.dumps(result.to_json(), ensure_ascii=False, separators=(",", ":"))
        await self.state.store.cache(org, fp, body.encode("utf-8"), now=self.state.clock())

    def running(self) -> int:
        """Live runs not finished (a metric: zero when idle)."""
        return len(self._running)

    def pending(self) -> int:
        """Live-run tasks not done yet (a metric: zero when idle)."""
        return sum(1 for task in self._tasks if not task.done())

    async def aclose(self) -> None:
        """Cancel runs still going (the server is stopping)."""
        tasks = [t for t in self._tasks if not t.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)


def _ends(event: Event) -> bool:
    return isinstance(event, Done | Failed)
