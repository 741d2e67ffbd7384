"""A run as the service holds it: one replayable log of its events that any number of
followers read, from the first event or from any sequence number, while it goes and after.

Every face follows runs the same way — the JSON answer waits for the last event, a stream
relays each, the web UI's page reconnects with the last id it saw. When the last follower of a
run leaves, the run is cancelled with everything it started, unless a follower asked to keep it
(a JSON request: its answer lands in the cache for the client's retry).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

from ..errors import DeadlineExceeded, RunCancelled, SleuthError
from ..events import Done, Event, Failed
from ..store.codec import result_from_json
from ..types import Result


def ends(event: Event) -> bool:
    return isinstance(event, Done | Failed)


@dataclass(eq=False)
class RunLog:
    """A run's events so far, in order; readers wait for more until it is closed."""

    events: list[Event] = field(default_factory=list)
    closed: bool = False
    _wake: asyncio.Event = field(default_factory=asyncio.Event)

    def publish(self, event: Event) -> None:
        if not self.closed:
            self.events.append(event)
            self._notify()

    def close(self) -> None:
        self.closed = True
        self._notify()

    def _notify(self) -> None:
        self._wake.set()
        self._wake = asyncio.Event()

    async def read(self, start: int = 0) -> AsyncIterator[tuple[int, Event]]:
        """(index, event) from `start` on. The last event is handed out only once the log is
        closed: by then the run's slot and its organization's running count are released, so
        a client's next request is never refused by its own finished run."""
        at = max(0, start)
        while True:
            wake = self._wake
            if at < len(self.events) and (self.closed or not ends(self.events[at])):
                at += 1
                yield at - 1, self.events[at - 1]
            elif self.closed and at >= len(self.events):
                return
            else:
                await wake.wait()


@dataclass(eq=False)
class Run:
    """One admitted (or cached, or shared) piece of work and its log."""

    id: str
    org: str
    kind: str  # research, steer, graph, ...
    log: RunLog = field(default_factory=RunLog)
    admitted: asyncio.Future[None] = field(default_factory=asyncio.Future)
    task: asyncio.Task[Any] | None = None
    cached_body: bytes | None = None  # a cache hit's stored JSON, served as it is
    followers: int = 0
    kept: bool = False  # some follower asked for the run to finish even if it leaves
    abandoned: bool = False  # every follower left: it is being cancelled, join no more
    value: Any = None  # what a piece of work other than a research run returned

    def __post_init__(self) -> None:
        # A refusal nobody awaited must not be reported as "never retrieved".
        self.admitted.add_done_callback(lambda f: f.cancelled() or f.exception())

    @property
    def done(self) -> bool:
        return self.log.closed or self.cached_body is not None

    def materialize(self) -> None:
        """A cache hit's log: its one `Done`, parsed from the stored JSON on first read."""
        if self.cached_body is not None and not self.log.closed:
            data = json.loads(self.cached_body)
            self.log.publish(Done(result_from_json(data), run_id=self.id, seq=1))
            self.log.close()

    def follow(self, *, keep: bool = False) -> Following:
        return Following(self, keep)

    def leave(self) -> None:
        self.followers -= 1
        if self.followers <= 0 and not self.kept and not self.done and self.task is not None:
            self.abandoned = True
            self.task.cancel()


class Following:
    """A follower's hold on a run: wait for it to be admitted, read its events, take its
    result; `leave()` (or leaving the `async with`) when the follower is gone."""

    def __init__(self, run: Run, keep: bool) -> None:
        self.run = run
        self._left = False
        run.followers += 1
        run.kept = run.kept or keep

    async def __aenter__(self) -> Following:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.leave()

    async def admitted(self) -> None:
        """Return once the run may go (at once for a cache hit or a shared run); raise the
        service's refusal (quota, rate, busy) when it may not."""
        try:
            await asyncio.shield(self.run.admitted)
        except asyncio.CancelledError:
            self.leave()
            if self.run.admitted.cancelled():  # the run's, not this follower's, cancellation
                raise RunCancelled("the run was cancelled before it started; retry") from None
            raise
        except BaseException:
            self.leave()
            raise

    def events(self, start: int = 0) -> AsyncIterator[Event]:
        self.run.materialize()
        return _events(self.run.log, start)

    def indexed(self, start: int = 0) -> AsyncIterator[tuple[int, Event]]:
        self.run.materialize()
        return self.run.log.read(start)

    async def result(self) -> Result:
        """The run's result, or its error raised."""
        async for event in self.events():
            if isinstance(event, Done):
                return event.result
            if isinstance(event, Failed):
                raise raised(event)
        raise RunCancelled("the run was cancelled before it ended; retry")

    def leave(self) -> None:
        if not self._left:
            self._left = True
            self.run.leave()


async def _events(log: RunLog, start: int) -> AsyncIterator[Event]:
    async for _, event in log.read(start):
        yield event


async def finish(
    events: AsyncIterator[Event], on_event: Callable[[Event], None] | None = None
) -> Result:
    """Read a run's events until it ends: its result, or its error raised."""
    async with aclosing(events):  # type: ignore[type-var]
        async for event in events:
            if on_event is not None:
                on_event(event)
            if isinstance(event, Done):
                return event.result
            if isinstance(event, Failed):
                raise raised(event)
    raise SleuthError("the run ended without a result")


def raised(failed: Failed) -> SleuthError:
    """The error a failed run ended with: its own, or (from another process's log, where only
    its words travel) one with the same code, status and meaning."""
    if failed.exception is not None:
        return failed.exception
    if failed.code == DeadlineExceeded.code:
        return DeadlineExceeded(failed.error, setting=failed.setting)
    error = SleuthError(failed.error, setting=failed.setting)
    error.code, error.http_status = failed.code, failed.http_status
    error.exit_code, error.retryable = failed.exit_code, failed.retryable
    return error
