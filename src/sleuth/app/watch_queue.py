"""Watches on the task queue (SLEUTH_DATABASE_URL): `sleuth worker` processes run them, on any
number of machines, each due watch once.

Two tasks on the batch queue the workers already listen to:

* a periodic tick, every minute — procrastinate defers a periodic job once per scheduled
  time across all workers (a unique row per task and timestamp), so however many workers run,
  one tick job exists per minute;
* a run job per due watch the tick finds, deferred with a queueing lock per watch (one queued
  run of a watch at a time), and started with `WatchStore.claim`, whose conditional update
  lets one runner have the watch even if two jobs ever reached it.

`queue_app` calls `register_watches` once; without a runner (a process that only enqueues
batches) the tasks exist but refuse to run.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING

from ..store.watches import WatchStore
from .watch import Watcher

if TYPE_CHECKING:
    import procrastinate

    from .queue import Runner

log = logging.getLogger("sleuth.watch")
TICK = "sleuth.watch.tick"
RUN = "sleuth.watch.run"
CRON = "* * * * *"  # a watch runs within a minute of being due


def register_watches(app: procrastinate.App, runner: Runner | None, *, queue: str) -> None:
    """Add the tick and run tasks to `app` (on `queue`, which the workers fetch from)."""
    import procrastinate

    stores: list[WatchStore] = []

    def store() -> WatchStore:
        if runner is None:
            raise RuntimeError("this process only enqueues batches")
        if not stores:  # opened on first use, in the worker's process
            stores.append(runner.service.app.watches)
        return stores[0]

    @app.task(name=RUN, queue=queue)
    async def run(watch_id: str) -> None:
        assert runner is not None
        watcher = Watcher(runner.service.app, store(), runner.service.defaults)
        try:
            done = await watcher.run_one(watch_id)
        finally:
            await watcher.aclose()
        if done is not None:
            log.info("watch %s: %s", watch_id, done.status)

    @app.periodic(cron=CRON, periodic_id="watches")
    @app.task(name=TICK, queue=queue)
    async def tick(timestamp: int) -> None:
        for watch_id in await asyncio.to_thread(store().due, time.time()):
            # AlreadyEnqueued: its run is queued already (the queueing lock).
            with contextlib.suppress(procrastinate.exceptions.AlreadyEnqueued):
                job = run.configure(queueing_lock=f"watch:{watch_id}")
                await job.defer_async(watch_id=watch_id)
