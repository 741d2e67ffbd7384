"""The runs a process holds: each one's task owned (a run that ends, fails or loses its last
follower cancels everything it started), its refusal or error delivered to its followers, and
the run kept a while after it ends for a page that reconnects late. The service's research
runs live here, and any other admitted work with a log: the web UI's stages, a graph's model
calls, batch items on a queue worker."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from ..errors import SleuthError
from ..events import Event, Failed
from .admission import Admission, Observer, Spent, Tally
from .caller import Caller
from .runs import Run, raised

T = TypeVar("T")
log = logging.getLogger("sleuth.service")
KEEP_FINISHED_S = 600.0  # a finished run stays followable this long,
# and only among the most recent this many finished runs: what finished runs hold (each one's
# log, a refusal's traceback) is then bounded by a count, not by how many runs a busy node
# finishes in KEEP_FINISHED_S. Under a burst a finished run held about 7 KB (16k runs, 117 MB):
# this many hold about 7 MB, and a page reconnecting late finds its run unless a thousand
# others finished meanwhile.
KEEP_FINISHED = 1024
QUICK = Spent(8, 30)  # the most searches and pages a quick run reads (its reservation)
NOTHING = Spent(0, 0)
Work = Callable[[Callable[[Event], None], Tally], Awaitable[T]]


class Holding:
    def __init__(self, admission: Admission, observer: Observer) -> None:
        self.admission, self.observer = admission, observer
        self._runs: dict[str, Run] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        # The finished runs still held: each one's id and when it is forgotten, oldest first.
        self._finished: dict[str, float] = {}

    def start(self, caller: Caller, kind: str, work: Work[T], *, want: Spent = QUICK) -> Run:
        """Start `work` once admitted in a run slot; its events go to the run's log, which a
        page follows by the run's id (`run_of`). The work's value is `run.value` once done."""
        run = Run(secrets.token_urlsafe(12), caller.org, kind)
        self.hold(run, self._work(run, caller, work, want))
        return run

    async def _work(self, run: Run, caller: Caller, work: Work[Any], want: Spent) -> None:
        async with self.admission.slot(caller, "run", want) as tally:
            run.admitted.set_result(None)
            async with observed(self.observer, run.kind, "-") as outcome:

                def emit(event: Event) -> None:
                    tally(event)
                    run.log.publish(event)

                run.value = await work(emit, tally)
                outcome[0] = "ok"

    async def perform(
        self, caller: Caller, kind: str, work: Work[T], *, want: Spent = NOTHING
    ) -> T:
        """Do admitted `work` and return its value, or raise its error (a graph's model calls,
        a batch item, a step of the web UI)."""
        run = self.start(caller, kind, work, want=want)
        async with run.follow(keep=True) as following:
            await following.admitted()
            async for event in following.events():
                if isinstance(event, Failed):
                    raise raised(event)
        if run.task is not None:
            await asyncio.shield(run.task)
        return run.value  # type: ignore[no-any-return]

    def run_of(self, caller: Caller, run_id: str) -> Run | None:
        """A run this process holds, when it is the caller's organization's."""
        self._forget(time.monotonic())
        run = self._runs.get(run_id)
        return run if run is not None and run.org == caller.org else None

    def hold(self, run: Run, body: Coroutine[Any, Any, None]) -> None:
        """Own the run's task: a refusal goes to its followers, an error to its log as the
        run's last event, and the run is forgotten once old enough."""

        async def driven() -> None:
            try:
                await body
            except SleuthError as exc:
                if not run.admitted.done():
                    run.admitted.set_exception(exc)
                else:
                    run.log.publish(Failed.of(exc))
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a bug costs this run, said in its log, never the server
                log.error("%s run %s failed", run.kind, run.id, exc_info=exc)
                error = SleuthError(f"internal error in run {run.id}; see the server log")
                if not run.admitted.done():
                    run.admitted.set_exception(error)
                else:
                    run.log.publish(Failed.of(error))
            finally:
                if not run.admitted.done():
                    run.admitted.cancel()
                run.materialize()
                run.log.close()
                self._forget_later(run)

        self._runs[run.id] = run
        run.task = asyncio.create_task(driven(), name=f"sleuth-{run.kind}-{run.id}")
        self._tasks.add(run.task)
        run.task.add_done_callback(self._tasks.discard)

    def _forget_later(self, run: Run) -> None:
        """Finished runs stay followable for a while (a page that reconnects late)."""
        now = time.monotonic()
        self._finished[run.id] = now + KEEP_FINISHED_S
        self._forget(now)

    def _forget(self, now: float) -> None:
        """Drop the finished runs whose time is up, and the oldest past KEEP_FINISHED."""
        while self._finished:
            oldest, until = next(iter(self._finished.items()))
            if until > now and len(self._finished) <= KEEP_FINISHED:
                return
            del self._finished[oldest]
            self._runs.pop(oldest, None)

    def running(self) -> int:
        """Runs not finished (a metric: zero when idle)."""
        return sum(1 for run in self._runs.values() if not run.done)

    def pending(self) -> int:
        """Run tasks not done yet (a metric: zero when idle)."""
        return sum(1 for task in self._tasks if not task.done())

    async def aclose(self) -> None:
        """Cancel work still going (its clients are gone: the server is stopping)."""
        tasks = [t for t in self._tasks if not t.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)


def observed(observer: Observer, kind: str, depth: str) -> Observed:
    return Observed(observer, kind, depth)


class Observed:
    """Reports a piece of work's start and its end (kind, depth, outcome, seconds)."""

    def __init__(self, observer: Observer, kind: str, depth: str) -> None:
        self.observer, self.kind, self.depth = observer, kind, depth
        self.outcome = ["cancelled"]
        self.started = 0.0

    async def __aenter__(self) -> list[str]:
        self.started = time.monotonic()
        self.observer.started(self.kind)
        return self.outcome

    async def __aexit__(self, kind: object, exc: object, tb: object) -> None:
        if isinstance(exc, SleuthError):
            self.outcome[0] = "failed"
        seconds = time.monotonic() - self.started
        self.observer.finished(self.kind, self.depth, self.outcome[0], seconds)
