"""Read candidates in parallel under the quick-mode deadlines.

All candidates are fetched concurrently (bounded by `concurrency`) through the injected fetcher.
The phase ends when every fetch has finished, when `deadline_s` has passed, or `settle_wait_s`
after `settle_after` pages have arrived — whichever comes first — so one slow site never holds the
answer. Unfinished fetches are cancelled; the caller falls back to their snippets.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..errors import BlockedURLError, FetchError
from ..events import Emit, Fetched, FetchSkipped
from ..ports import Fetcher
from ..runtime import Tasks
from ..types import Page
from .candidates import Candidate


@dataclass(frozen=True, slots=True)
class ReadLimits:
    deadline_s: float = 6.0
    settle_after: int = 3
    settle_wait_s: float = 0.7
    concurrency: int = 10


@dataclass(slots=True)
class ReadOutcome:
    pages: dict[str, Page] = field(default_factory=dict)  # by candidate URL
    failed: dict[str, str] = field(default_factory=dict)  # URL -> reason
    blocked: set[str] = field(default_factory=set)  # refused by policy: not even a snippet
    unfinished: list[str] = field(default_factory=list)


async def _fetch_one(
    fetcher: Fetcher, url: str, gate: asyncio.Semaphore
) -> tuple[str, Page | FetchError, int]:
    async with gate:
        started = time.monotonic()
        try:
            page: Page | FetchError = await fetcher.fetch(url)
        except FetchError as exc:
            page = exc
        except Exception as exc:  # an adapter bug must cost one page, not the run
            page = FetchError(f"unexpected {type(exc).__name__}: {exc}", url)
        return url, page, int((time.monotonic() - started) * 1000)


async def read_all(
    candidates: Sequence[Candidate], fetcher: Fetcher, limits: ReadLimits, emit: Emit, tasks: Tasks
) -> ReadOutcome:
    """Fetch candidates, emitting a fetch event as each finishes; unfinished ones are cancelled."""
    outcome = ReadOutcome()
    gate = asyncio.Semaphore(max(1, limits.concurrency))
    urls = {tasks.spawn(_fetch_one(fetcher, c.url, gate)): c.url for c in candidates}
    loop = asyncio.get_running_loop()
    hard_stop = loop.time() + limits.deadline_s
    settle_stop: float | None = None
    pending: set[asyncio.Task[tuple[str, Page | FetchError, int]]] = set(urls)
    try:
        while pending:
            stop = hard_stop if settle_stop is None else min(hard_stop, settle_stop)
            timeout = stop - loop.time()
            if timeout <= 0:
                break
            done, pending = await asyncio.wait(
                pending, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
            for task in done:
                emit(_record(task.result(), outcome))
            if settle_stop is None and len(outcome.pages) >= limits.settle_after:
                settle_stop = loop.time() + limits.settle_wait_s
    finally:
        for task in pending:
            task.cancel()
            outcome.unfinished.append(urls[task])
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
    for url in outcome.unfinished:
        reason = "not read within the deadline; using its search snippet"
        emit(FetchSkipped(url, reason, "deadline"))
    return outcome


def _record(
    item: tuple[str, Page | FetchError, int], outcome: ReadOutcome
) -> Fetched | FetchSkipped:
    url, page, ms = item
    if isinstance(page, FetchError):
        outcome.failed[url] = page.reason
        if isinstance(page, BlockedURLError):
            outcome.blocked.add(url)
        return FetchSkipped(url, page.reason, page.cause)
    outcome.pages[url] = page
    return Fetched(url, len(page.text), ms, page.from_cache, " ".join(page.title.split())[:200])
