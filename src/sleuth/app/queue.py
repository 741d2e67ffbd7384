"""Batch research on a distributed task queue: `procrastinate` jobs in PostgreSQL, answered by
`sleuth worker` processes on any number of machines.

Enqueueing stores the batch's questions (`store.batches_pg`) and defers one job per question;
a worker's job claims its question, researches it through the application exactly as the local
batch does (`batch.answer_item`), and writes the question's one record. The queue's guarantees
are procrastinate's: a job goes to one worker at a time; a worker that dies stops sending
heartbeats and every worker's recovery loop puts its running jobs back on the queue
(`JobManager.get_stalled_jobs` / `retry_job`). The store's conditional update makes the record
exactly-once on top of that, and a question whose workers die `MAX_ATTEMPTS` times in a row is
recorded as failed rather than retried forever.

Quotas are metered per question against the batch's organization through the service store
(`admit` before, `settle` after), only by the run that wrote the record: a question answered
twice (its first worker killed after writing) is never metered twice.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import NotFoundError, QuotaExceeded, UsageError
from ..events import Event
from ..store.batches_pg import BatchStore, NewItem, Progress
from .admission import Policy, Tally
from .batch import BadLine, Item, Parsed, Record, error_kind, failure, run_values, success
from .beat import Beat
from .budget import Budget
from .caller import LOCAL_ORG, Caller
from .options import Prepared
from .runs import finish
from .service import wanted
from .watch_queue import register_watches

if TYPE_CHECKING:
    import procrastinate
    from procrastinate.types import JSONValue

    from .application import Sleuth
    from .service import Service


log = logging.getLogger("sleuth.queue")
QUEUE = "sleuth_batch"
TASK = "sleuth.batch.question"
MAX_ATTEMPTS = 3  # a question whose worker died this many times is recorded as failed
SCHEMA_LOCK = 0x51E07DC  # pg_advisory_xact_lock: one process installs the queue's schema


def queue_url(url: str | None) -> str:
    """The application's database URL, which the queue needs (no queue without PostgreSQL)."""
    if not url:
        raise UsageError(
            "batches on the queue need PostgreSQL: set SLEUTH_DATABASE_URL=postgresql://... "
            "(without it, `sleuth batch` runs the questions here)"
        )
    return url


def redact(url: str) -> str:
    """`url` without its password, for messages and logs."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = f"{parts.username}:***@{parts.hostname or ''}" + (
        f":{parts.port}" if parts.port else ""
    )
    return urlunsplit(parts._replace(netloc=netloc))


def queue_app(url: str, runner: Runner | None = None) -> procrastinate.App:
    """The procrastinate app on `url`; with a runner, its task answers questions."""
    import procrastinate

    app = procrastinate.App(
        connector=procrastinate.PsycopgConnector(conninfo=url, min_size=0, max_size=8)
    )

    @app.task(name=TASK, queue=QUEUE)
    async def question(batch: str, n: int) -> None:
        if runner is None:
            raise RuntimeError("this process only enqueues questions")
        await runner.answer(batch, n)

    register_watches(app, runner, queue=QUEUE)  # watched questions (app/watch_queue.py)
    return app


async def prepare_schema(url: str) -> None:
    """Install the queue's tables (the batches' and procrastinate's) when missing, once
    across processes starting together."""
    import psycopg

    store = await BatchStore(url).open()
    try:
        await store.migrate()
    finally:
        await store.aclose()
    schema = queue_app(url).schema_manager.get_schema()
    conn = await psycopg.AsyncConnection.connect(url, autocommit=True)
    async with conn, conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        cursor = await conn.execute("SELECT to_regclass('procrastinate_jobs')")
        row = await cursor.fetchone()
        if not (row and row[0]):
            await conn.execute(schema)


async def enqueue(
    url: str, org: str, parsed: Sequence[Parsed], options: Mapping[str, Any]
) -> tuple[str, int]:
    """Store a batch and defer a job per question: (batch id, questions queued). Bad lines are
    stored already failed, with their reason."""
    items = [_new_item(entry) for entry in parsed]
    store = await BatchStore(url).open()
    try:
        batch_id = await store.create(org, items, dict(options))
    finally:
        await store.aclose()
    jobs: list[dict[str, JSONValue]] = [
        {"batch": batch_id, "n": item.n} for item in items if item.record is None
    ]
    if jobs:
        app = queue_app(url)
        async with app.open_async():
            task = app.tasks[TASK]
            await task.batch_defer_async(*jobs)
    return batch_id, len(jobs)


def _new_item(entry: Parsed) -> NewItem:
    if isinstance(entry, BadLine):
        return NewItem(entry.line, entry.id, None, {}, entry.record())
    return NewItem(entry.line, entry.id, entry.question, dict(entry.values))


class Runner:
    """What a worker's jobs share: the service (the application, its store chosen from the one
    database URL, admission and metering) and the batch store."""

    def __init__(self, service: Service, store: BatchStore) -> None:
        self.service, self.store = service, store

    async def answer(self, batch_id: str, n: int) -> None:
        claimed = await self.store.claim(batch_id, n)
        if claimed is None:
            return  # it has its record already (a retried job whose first run finished)
        item = Item(claimed.item_id, n, claimed.question, claimed.values)
        if claimed.attempts > MAX_ATTEMPTS:
            message = f"its worker stopped {MAX_ATTEMPTS} times while researching it"
            await self.store.finish(batch_id, n, failure(item, "worker_lost", message))
            return
        caller = Caller(claimed.org, how="local" if claimed.org == LOCAL_ORG else "key")
        try:
            caller = await self.service.with_model(caller)  # the organization's own model
            values = {"query": item.question, **run_values(dict(claimed.options), item)}
            prepared = self.service.prepare(caller, values)
        except Exception as exc:  # a question the run cannot take is its record
            await self.store.finish(batch_id, n, failure(item, error_kind(exc), str(exc)))
            return

        async def research(emit: Callable[[Event], None], tally: Tally) -> None:
            record = await self._research(prepared, item, emit, tally)
            if not await self.store.finish(batch_id, n, record):
                tally.searches = tally.pages = 0  # another run wrote it: that one is metered
                tally.cost_usd = 0.0

        try:
            await self.service.perform(caller, "batch", research, want=wanted(prepared))
        except QuotaExceeded as exc:
            await self.store.finish(batch_id, n, failure(item, "quota_exceeded", str(exc)))

    async def _research(
        self, prepared: Prepared, item: Item, emit: Callable[[Event], None], tally: Tally
    ) -> Record:
        """Like `batch.answer_item`, saved as a session of the batch's organization, whose
        knowledge bases are the only ones it may search, within what its quotas allow."""
        try:
            budget = Budget.of(tally.allowance)
            result = await finish(self.service.app.run(prepared, budget=budget), emit)
        except Exception as exc:  # one question's failure is its record, never the batch's
            return failure(item, error_kind(exc), str(exc) or type(exc).__name__)
        tally.searches, tally.pages = result.usage.searches, result.usage.pages_read
        tally.cost_usd = result.usage.cost_usd or 0.0
        return success(item, result.to_json())


async def recover_stalled(app: procrastinate.App, *, stalled_after_s: float) -> None:
    """Put back on the queue the jobs of workers that stopped sending heartbeats."""
    try:
        stalled = await app.job_manager.get_stalled_jobs(
            queue=QUEUE, seconds_since_heartbeat=stalled_after_s
        )
        for job in stalled:
            log.warning("worker: job %s stalled (its worker died); back on the queue", job.id)
            await app.job_manager.retry_job(job)
    except Exception as exc:  # another worker retried it first, or the database blinked
        log.warning("worker: stalled-job recovery: %s", exc)


async def run_worker(
    app: Sleuth,
    *,
    concurrency: int,
    stalled_after_s: float = 30.0,
    wait: bool = True,
    values: Mapping[str, Any] | None = None,
    secret_key: str | None = None,
) -> None:
    """Answer queued questions until stopped (SIGINT/SIGTERM: running questions finish first),
    or, with `wait=False`, until the queue is empty. `values` are the worker's own settings
    (search backend, model...); a batch's and a question's run options go on top. Quotas and
    usage are the application's service store's: the database's, like every replica's;
    `secret_key` opens the organizations' own model keys, as the server's does."""
    url = queue_url(app.database_url)
    await prepare_schema(url)
    store = await BatchStore(url).open()
    policy = Policy(run_slots=concurrency, org_runs=None)
    service = app.service(policy, defaults=values or {}, secret_key=secret_key)
    queue = queue_app(url, Runner(service, store))
    try:
        async with queue.open_async():
            recovery = Beat(
                lambda: recover_stalled(queue, stalled_after_s=stalled_after_s),
                every_s=stalled_after_s / 3,
            )
            try:
                await queue.run_worker_async(
                    queues=[QUEUE],
                    concurrency=concurrency,
                    wait=wait,
                    update_heartbeat_interval=stalled_after_s / 3,
                    stalled_worker_timeout=stalled_after_s,
                    delete_jobs="successful",
                    fetch_job_polling_interval=1.0,
                )
            finally:
                await recovery.stop()
    finally:
        await store.aclose()


async def follow(
    url: str,
    org: str,
    batch_id: str,
    on_progress: Callable[[Progress], None],
    *,
    poll_s: float = 1.0,
) -> Progress:
    """Report a batch's progress every `poll_s` until every question has its record."""
    store = await BatchStore(url).open()
    try:
        while True:
            progress = await store.progress(org, batch_id)
            if progress is None:
                raise NotFoundError(f"no batch {batch_id!r}", setting="batch")
            on_progress(progress)
            if progress.finished:
                return progress
            await asyncio.sleep(poll_s)
    finally:
        await store.aclose()


async def collect(
    url: str, org: str, batch_id: str, sink: Callable[[Record], None], skip: set[str]
) -> None:
    """Every record of a batch, in line order, to `sink` (ids in `skip` left out)."""
    store = await BatchStore(url).open()
    try:
        async for _, record in store.records(org, batch_id):
            if record.get("id") not in skip:
                sink(record)
    finally:
        await store.aclose()
