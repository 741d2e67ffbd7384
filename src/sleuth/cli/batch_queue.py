"""`sleuth batch --queue` and `--follow`: enqueue the questions on the PostgreSQL task queue as
the organization `local`, follow the batch with the same progress bar as a local one, and
write its records (ids already in the results file are left out) once every question has
its record."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ..extras import install_hint, missing
from ..settings.table import SETTINGS, flag_name
from .render import echo

if TYPE_CHECKING:
    from ..store.batches_pg import Progress


def queued(
    questions: Path | None,
    given: dict[str, Any],
    target: Path | None,
    *,
    follow: str | None,
    wait: bool,
    retry_failed: bool = False,
) -> int:
    """Enqueue (unless following) and follow; the number of lines that stand failed."""
    absent = missing("queue")
    if absent:
        raise UsageError(
            f"batch --queue needs the queue extra ({', '.join(absent)} not installed): "
            f"{install_hint('queue')}"
        )
    from ..app.batchfile import ResultsFile
    from ..app.queue import queue_url
    from ..settings import database_url

    url = queue_url(database_url())
    results = ResultsFile(target, sys.stdout)
    batch_id, kept_failures = follow, 0
    if batch_id is None:
        assert questions is not None
        batch_id, kept_failures = _enqueue(url, questions, given, results, retry_failed)
        if not wait:
            echo(batch_id)
            return 0
    try:
        # what the file already holds is not written again (after a retry's `forget`,
        # the retried lines' old failures are no longer in it)
        return _follow(url, batch_id, results, results.answered(), target) + kept_failures
    finally:
        results.close()


def _enqueue(
    url: str, questions: Path, given: dict[str, Any], results: Any, retry: bool
) -> tuple[str, int]:
    """Queue the lines still to do: the batch id, and how many lines keep an earlier
    failure (not retried)."""
    from ..app.batch import Tally
    from ..app.caller import LOCAL_ORG
    from ..app.queue import enqueue, prepare_schema
    from .batch_progress import to_do

    workers = sorted(k for k in given if k != "deep" and SETTINGS[k].target == "engine")
    if workers:
        flags = ", ".join(flag_name(k) for k in workers)
        raise UsageError(
            f"{flags}: with --queue the search backend and model are the workers' settings; "
            "give them to `sleuth worker`"
        )
    tally = Tally()
    todo = to_do(questions, results, tally, retry)

    async def go() -> tuple[str, int]:
        await prepare_schema(url)
        return await enqueue(url, LOCAL_ORG, todo, given)

    batch_id, count = asyncio.run(go())
    skipped = f", {tally.skipped} already in the results" if tally.skipped else ""
    if tally.failed_before:
        skipped += (
            f", {tally.failed_before} failed in an earlier run and skipped "
            "(run them again with --retry-failed)"
        )
    echo(
        f"sleuth: batch {batch_id}: {count} questions queued, {len(todo) - count} bad lines "
        f"recorded{skipped}; follow it with: sleuth batch --follow {batch_id}",
        err=True,
    )
    return batch_id, tally.failed_before


def _follow(url: str, batch_id: str, results: Any, answered: set[str], target: Path | None) -> int:
    from ..app.caller import LOCAL_ORG
    from ..app.queue import collect, follow
    from .batch_progress import Bar, summary

    bars: list[Bar] = []

    def shown(progress: Progress) -> None:
        if not bars:
            bars.append(Bar(sys.stderr, progress.total))
        bars[0].step(progress)

    async def go() -> Progress:
        progress = await follow(url, LOCAL_ORG, batch_id, shown)
        await collect(url, LOCAL_ORG, batch_id, results.write, answered)
        return progress

    try:
        progress = asyncio.run(go())
    finally:
        for bar in bars:
            bar.close()
    summary(_Counts(progress.total, progress.done, progress.failed), target)
    return progress.failed


class _Counts:
    def __init__(self, total: int, done: int, failed: int) -> None:
        self.total, self.done, self.failed = total, done, failed
        self.skipped = self.duplicates = self.failed_before = self.retried = 0
