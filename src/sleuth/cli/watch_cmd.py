"""`sleuth watch add|ls|show|rm|run`: questions re-asked on a schedule, each run compared with
the one before and a signed webhook called when the answer changed. Locally `watch run --loop`
(or a systemd timer running `watch run`) drives them; with SLEUTH_DATABASE_URL, `sleuth worker`
processes do (any number; each due watch runs once)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import click

from ..errors import SleuthError
from ..settings import Settings
from .configmap import load
from .options import option, table_option, table_options
from .render import echo
from .serve_cmd import ENGINE

if TYPE_CHECKING:
    from ..app.watch import Watcher
    from ..settings.resolve import Resolved
    from ..store.watches import Watch, WatchRun, WatchStore


def _store() -> WatchStore:
    from ..app.application import Sleuth

    return Sleuth(Settings()).watches  # where it lives is the environment's, not config.toml's


@click.group("watch")
def watch() -> None:
    """Watched questions: re-asked on a schedule, changes reported (and sent to a webhook).

    \b
    Examples:
      sleuth watch add "What is the latest stable Python release?" --every=1d
      sleuth watch add "Q" --every=12h --deep --webhook=https://hooks.example.com/sleuth
      sleuth watch run --loop
    """


@watch.command("add")
@click.argument("question")
@option("--every", default="1d", show_default=True, help="How often: 30min, 12h, 1d, 2w.")
@option("--deep", is_flag=True, help="Deep research on each run.")
@option("--webhook", metavar="URL", help="POST a signed JSON body here when the answer changes.")
@table_option("json", dest="as_json")
def add_cmd(question: str, every: str, deep: bool, webhook: str | None, as_json: bool) -> None:
    """Watch QUESTION: it is due at once; each later run re-runs the last one.

    \b
    Examples:
      sleuth watch add "What does Example Cloud charge for audit log export?" --every=1d
      sleuth watch add "Q" --every=6h --webhook=https://hooks.example.com/sleuth --json
    """
    from ..app.watch import new_watch

    allow = Settings.from_env().allow_private_network
    made = _store().add(new_watch(question, every, deep=deep, webhook=webhook, allow_private=allow))
    if as_json:
        echo(json.dumps({**made.to_json(), "secret": made.secret}))
        return
    echo(made.id)
    if made.webhook:
        echo(f"sleuth: webhook secret (shown once; it signs every call): {made.secret}", err=True)


@watch.command("ls")
@table_option("json", dest="as_json")
def ls_cmd(as_json: bool) -> None:
    """List watches: how often, the last run and when the answer last changed.

    \b
    Examples:
      sleuth watch ls
      sleuth watch ls --json
    """
    found = _store().all()
    if as_json:
        echo(json.dumps([w.to_json() for w in found], indent=2))
        return
    if not found:
        echo("no watches", err=True)
    for w in found:
        echo(_line(w))


def _line(w: Watch) -> str:
    every = _span(w.every_s)
    last = f"last {w.last_status} {w.last_run_at}" if w.last_run_at else "not run yet"
    change = f" · changed {w.last_change_at}" if w.last_change_at else ""
    due = datetime.fromtimestamp(w.next_at, UTC).isoformat(timespec="minutes")
    hook = " · webhook" if w.webhook else ""
    deep = " · deep" if w.options.get("deep") else ""
    return f"{w.id}  {w.question}  · every {every}{deep}{hook} · {last}{change} · due {due}"


def _span(seconds: int) -> str:
    for size, unit in ((86400, "d"), (3600, "h"), (60, "min")):
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


@watch.command("show")
@click.argument("watch_id", metavar="ID")
@table_option("json", dest="as_json")
def show_cmd(watch_id: str, as_json: bool) -> None:
    """A watch and its runs, newest first: what each found changed, its webhook call.

    \b
    Examples:
      sleuth watch show 3f9a01bc
    """
    store = _store()
    found, runs = store.get(watch_id), store.runs(watch_id)
    if as_json:
        echo(json.dumps({**found.to_json(), "runs": [r.to_json() for r in runs]}, indent=2))
        return
    echo(_line(found))
    for run in runs:
        echo(f"  {describe(run)}")


@watch.command("rm")
@click.argument("watch_id", metavar="ID")
def rm_cmd(watch_id: str) -> None:
    """Stop watching (its saved runs stay in `sleuth sessions`).

    \b
    Examples:
      sleuth watch rm 3f9a01bc
    """
    gone = _store().rm(watch_id)
    echo(f"removed {gone.id}  {gone.question}")


@watch.command("run")
@click.argument("watch_ids", metavar="[ID]...", nargs=-1)
@option("--loop", is_flag=True, help="Keep running due watches until stopped.")
@option(
    "--interval",
    type=click.IntRange(5, 86400),
    default=60,
    show_default=True,
    help="With --loop: seconds between looks for due watches.",
)
@table_options(*ENGINE)
def run_cmd(watch_ids: tuple[str, ...], loop: bool, interval: int, **flags: Any) -> None:
    """Run the watches that are due (or the ones named, now), and print what changed.

    \b
    Examples:
      sleuth watch run
      sleuth watch run 3f9a01bc --search=searxng
      sleuth watch run --loop --interval=300
    """
    asyncio.run(_run(watch_ids, loop, interval, load()))


async def _run(ids: tuple[str, ...], loop: bool, interval: int, resolved: Resolved) -> None:
    from ..app.application import Sleuth
    from ..app.watch import Watcher

    stop = asyncio.Event()
    if loop:  # SIGTERM/SIGINT: finish the run in hand (its watch stays held otherwise), stop
        for sig in (signal.SIGTERM, signal.SIGINT):
            asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    async with Sleuth(resolved.settings()) as app:
        store = app.watches
        watcher = Watcher(app, store, resolved.given("engine"))
        try:
            while not stop.is_set():
                try:
                    for run in await _once(watcher, store, ids):
                        echo(describe(run))
                except SleuthError as exc:
                    if not loop:
                        raise
                    echo(f"sleuth: watch run: {exc} (trying again in {interval} s)", err=True)
                if not loop:
                    return
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), interval)
        finally:
            await watcher.aclose()


async def _once(watcher: Watcher, store: WatchStore, ids: tuple[str, ...]) -> list[WatchRun]:
    if not ids:
        return await watcher.run_due()
    runs = []
    for ref in ids:
        found = await watcher.run_one(store.get(ref).id, force=True)
        if found is None:
            echo(f"sleuth: {ref} is being run by another runner", err=True)
        else:
            runs.append(found)
    return runs


def describe(run: WatchRun) -> str:
    c = run.changes
    parts = [f"{run.watch_id}  {run.ran_at}  {run.status}"]
    if run.status in ("changed", "unchanged"):
        parts.append(
            f"sources +{len(c.get('sources_added', ()))} -{len(c.get('sources_removed', ()))}"
            f" · claims +{len(c.get('claims_added', ()))} -{len(c.get('claims_removed', ()))}"
        )
    if run.status == "failed":
        parts.append(str(c.get("error", "")))
    if run.session_id:
        parts.append(f"session {run.session_id}")
    if run.delivery:
        parts.append(f"webhook {run.delivery}")
    return "  · ".join(parts)


COMMANDS = [watch]
