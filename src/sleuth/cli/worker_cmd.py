"""`sleuth worker`: answer the questions of queued batches (`sleuth batch --queue`, `POST
/api/orgs/{org}/batches`) from the PostgreSQL task queue of SLEUTH_DATABASE_URL. Run any number,
on any machine that reaches the database; a worker that dies has its questions taken up by
the others."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import click

from ..errors import UsageError
from ..extras import install_hint, missing
from .configmap import load
from .options import option, table_options
from .serve_cmd import ENGINE

if TYPE_CHECKING:
    from ..settings.resolve import Resolved

EXAMPLES = """
\b
Examples:
  SLEUTH_DATABASE_URL=postgresql://sleuth@db/sleuth sleuth worker --concurrency 4
  sleuth worker --search=searxng --base-url=http://127.0.0.1:11434/v1 --until-empty
"""


@click.command("worker", epilog=EXAMPLES)
@option(
    "--concurrency",
    "worker_concurrency",
    type=click.IntRange(1, 64),
    default=4,
    show_default=True,
    help="Questions researched at once by this worker.",
)
@option(
    "--stalled-after",
    type=click.FloatRange(1.0, 3600.0),
    default=30.0,
    show_default=True,
    help="Seconds without a heartbeat after which a worker counts as dead and its questions "
    "go back on the queue (heartbeats every third of it).",
)
@option("--until-empty", is_flag=True, help="Stop once the queue is empty instead of waiting.")
@table_options(*ENGINE)
def worker(worker_concurrency: int, stalled_after: float, until_empty: bool, **flags: Any) -> None:
    """Answer queued batch questions until stopped (Ctrl-C or SIGTERM lets the questions in
    hand finish; a second one stops at once, and other workers take those questions up).

    The search backend and model are this worker's own flags and environment; a batch carries
    only run options (depth, sources, dates...)."""
    absent = missing("queue")
    if absent:
        raise UsageError(
            f"sleuth worker needs the queue extra ({', '.join(absent)} not installed): "
            f"{install_hint('queue')}"
        )
    from ..app.queue import queue_url, redact
    from ..settings import database_url

    url, resolved = queue_url(database_url()), load()
    click.echo(
        f"sleuth: worker on {redact(url)}: {worker_concurrency} questions at once",
        err=True,
    )
    asyncio.run(_work(resolved, worker_concurrency, stalled_after, until_empty))


async def _work(
    resolved: Resolved, concurrency: int, stalled_after: float, until_empty: bool
) -> None:
    from ..app.application import Sleuth
    from ..app.queue import run_worker

    values = resolved.given("engine")  # the worker's own: search backend, model, reading
    async with Sleuth(resolved.settings()) as app:
        await run_worker(
            app,
            concurrency=concurrency,
            stalled_after_s=stalled_after,
            wait=not until_empty,
            values=values,
            secret_key=resolved.values["secret_key"],  # opens organizations' own model keys
        )


COMMANDS = [worker]
