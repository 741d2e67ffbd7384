"""Run research over questions and score every run.

An *arm* is anything that answers one question with an `Observation`: Sleuth itself (built
from `Settings` and a `ResearchRequest` template) or a baseline the bench builds. The runner
only schedules arms over questions and scores what comes back, so every arm is measured the
same way, on the same machine, at the same time.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from ..app.application import Sleuth
from ..app.options import Prepared, Saving
from ..app.runs import finish
from ..engine import Engine
from ..errors import SleuthError
from ..events import Event, Fetched, FetchSkipped
from ..settings import Settings
from ..types import ResearchRequest, Result
from .questions import Question
from .score import Observation, Score, score

Arm = Callable[[Question], Awaitable[Observation]]
Progress = Callable[[int, int, Score], None]
PROXY_VARS = ("HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy")


@dataclass(frozen=True, slots=True)
class SleuthArm:
    """Sleuth as configured by `settings`, each question run as `template` with its text.

    With `app`, every question shares that application's resources (connection pool, page
    cache); without, each question gets its own. Either way each run has its own meter."""

    settings: Settings
    template: ResearchRequest = field(default_factory=lambda: ResearchRequest("?"))
    app: Sleuth | None = None

    async def __call__(self, q: Question) -> Observation:
        request = replace(self.template, question=q.question)
        prepared = Prepared(self.settings, request, Saving(enabled=False))
        if self.app is not None:
            return await observe(self.app.run(prepared))
        async with Sleuth(self.settings) as app:
            return await observe(app.run(prepared))


async def observe_engine(engine: Engine, request: ResearchRequest) -> Observation:
    """Run one request on a bare engine (the bench's baselines), timing it."""
    return await observe(engine.run(request))


async def observe(events: AsyncIterator[Event]) -> Observation:
    """Follow one run, timing it and noting which URLs it tried and read."""
    started = time.monotonic()
    trace = _Trace()
    try:
        result = await trace.follow(events)
        return trace.observe(result, None, _ms_since(started))
    except SleuthError as exc:
        return trace.observe(None, f"{exc.code}: {exc}", _ms_since(started))


class _Trace:
    """Which URLs a run tried and which it read, from its event stream."""

    def __init__(self) -> None:
        self.candidates: dict[str, None] = {}
        self.read: dict[str, None] = {}
        self.cut: dict[str, None] = {}

    async def follow(self, events: AsyncIterator[Event]) -> Result:
        return await finish(events, self.note)

    def note(self, event: Event) -> None:
        if isinstance(event, Fetched):
            self.candidates[event.url] = self.read[event.url] = None
        elif isinstance(event, FetchSkipped):
            self.candidates[event.url] = None
            if event.cause == "deadline":
                self.cut[event.url] = None

    def observe(self, result: Result | None, error: str | None, ms: int) -> Observation:
        return Observation(
            result, ms, error, tuple(self.candidates), tuple(self.read), tuple(self.cut)
        )


def _ms_since(started: float) -> int:
    return int((time.monotonic() - started) * 1000)


async def run_arm(
    arm: Arm,
    questions: Sequence[Question],
    concurrency: int = 1,
    progress: Progress | None = None,
) -> list[Score]:
    """Every question through `arm`, at most `concurrency` at once; scores in question order."""
    gate = asyncio.Semaphore(max(1, concurrency))
    done = 0

    async def one(q: Question) -> Score:
        nonlocal done
        async with gate:
            row = score(q, await _observe(arm, q))
        done += 1
        if progress is not None:
            progress(done, len(questions), row)
        return row

    return list(await asyncio.gather(*(one(q) for q in questions)))


async def _observe(arm: Arm, q: Question) -> Observation:
    started = time.monotonic()
    try:
        return await arm(q)
    except SleuthError as exc:
        return Observation(None, _ms_since(started), f"{exc.code}: {exc}")
    except Exception as exc:  # one broken question must not lose a ten-minute evaluation
        return Observation(None, _ms_since(started), f"unexpected {type(exc).__name__}: {exc}")


@contextmanager
def proxy_environment(env: Mapping[str, str]) -> Iterator[None]:
    """Point this process's HTTP proxy variables at an offline web, restoring them after.

    The fetcher's HTTP client reads proxies from the process environment (as every standard
    client does), so an in-process evaluation against a corpus web has to set them here.
    """
    saved = {name: os.environ.get(name) for name in PROXY_VARS}
    os.environ.update({k: v for k, v in env.items() if k in PROXY_VARS})
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
