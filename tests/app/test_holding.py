"""The runs a process holds after they finish: followable by id (a page that reconnects late),
but only the most recent KEEP_FINISHED of them, so what finished runs hold stays bounded
however many runs a busy node finishes within KEEP_FINISHED_S."""

from __future__ import annotations

import asyncio
import time

import pytest

from sleuth.app import holding
from sleuth.app.admission import Admission, Policy, Tally, Unobserved
from sleuth.app.caller import Caller
from sleuth.app.holding import NOTHING, Holding
from sleuth.store.service_sqlite import SqliteServiceStore

ACME = Caller("acme", how="key")


async def work(emit: object, tally: Tally) -> str:
    return "done"  # emits nothing: a run's log may be empty


def held(store: SqliteServiceStore) -> Holding:
    gate = Admission(store, Policy(run_slots=4, org_runs=4), time.time, Unobserved())
    return Holding(gate, Unobserved())


async def finished(holder: Holding) -> str:
    run = holder.start(ACME, "steer", work, want=NOTHING)
    assert run.task is not None
    await run.task
    assert run.done and run.value == "done"
    return run.id


async def test_only_the_most_recent_finished_runs_are_kept(
    store: SqliteServiceStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(holding, "KEEP_FINISHED", 3)
    holder = held(store)
    ids = [await finished(holder) for _ in range(5)]
    kept = [holder.run_of(ACME, run_id) is not None for run_id in ids]
    assert kept == [False, False, True, True, True]


async def test_a_run_still_going_is_never_forgotten_for_the_finished_ones(
    store: SqliteServiceStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(holding, "KEEP_FINISHED", 1)
    holder = held(store)
    release = asyncio.Event()

    async def slow(emit: object, tally: Tally) -> str:
        await release.wait()
        return "done"

    going = holder.start(ACME, "steer", slow, want=NOTHING)
    ids = [await finished(holder) for _ in range(3)]
    assert holder.run_of(ACME, going.id) is going
    assert [holder.run_of(ACME, run_id) is not None for run_id in ids] == [False, False, True]
    release.set()
    assert going.task is not None
    await going.task
    assert holder.run_of(ACME, going.id) is going  # now the one finished run kept
    assert holder.run_of(ACME, ids[-1]) is None


async def test_a_finished_run_is_forgotten_once_its_time_is_up(
    store: SqliteServiceStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    holder = held(store)
    with monkeypatch.context() as patched:
        patched.setattr(holding, "KEEP_FINISHED_S", 0.0)  # its time is up as it finishes
        gone = await finished(holder)
    kept = await finished(holder)
    assert holder.run_of(ACME, gone) is None
    assert holder.run_of(ACME, kept) is not None  # within its 600 s
    assert holder.run_of(Caller("globex", how="key"), kept) is None  # another org's
