"""Admission on a real SQLite service store: the organization's running work is checked before a
node slot is taken, cheap work has its own pool, refusals say when to retry, and a slot is
settled with what the work spent (or released when it spent nothing)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from sleuth.app.admission import Admission, Policy, Unobserved
from sleuth.app.caller import Caller
from sleuth.errors import QuotaExceeded, RateLimited, ServerBusy
from sleuth.store.service_sqlite import SqliteServiceStore

ACME, GLOBEX = Caller("acme", how="key"), Caller("globex", how="key")


@pytest.fixture
async def store(tmp_path: Path) -> SqliteServiceStore:
    opened = SqliteServiceStore(tmp_path)
    yield opened  # type: ignore[misc]
    await opened.aclose()


def admission(store: SqliteServiceStore, **policy: object) -> Admission:
    return Admission(store, Policy(**policy), time.time, Unobserved())  # type: ignore[arg-type]


async def test_an_orgs_limit_refuses_before_a_node_slot_is_taken(
    store: SqliteServiceStore,
) -> None:
    gate = admission(store, run_slots=2, org_runs=1, retry_after_s=3.0)
    async with gate.slot(ACME, "run"):
        with pytest.raises(RateLimited) as refused:
            async with gate.slot(ACME, "run"):
                pass
        assert refused.value.retry_after == 3.0 and gate.busy["run"] == 1
        async with gate.slot(GLOBEX, "run"):  # another org still gets the free slot
            with pytest.raises(ServerBusy) as busy:
                async with gate.slot(Caller("initech"), "run"):
                    pass
            assert busy.value.retry_after == 3.0
    assert gate.busy == {"run": 0, "light": 0}


async def test_light_work_has_its_own_pool_and_no_org_limit(store: SqliteServiceStore) -> None:
    gate = admission(store, run_slots=1, light_slots=3, org_runs=1)

    async def light(hold: asyncio.Event) -> None:
        async with gate.slot(ACME, "light"):
            await hold.wait()

    async with gate.slot(ACME, "run"):
        hold = asyncio.Event()
        held = [asyncio.create_task(light(hold)) for _ in range(3)]
        await asyncio.sleep(0.05)
        assert gate.busy == {"run": 1, "light": 3}
        with pytest.raises(ServerBusy):
            async with gate.slot(GLOBEX, "light"):
                pass
        hold.set()
        await asyncio.gather(*held)  # interleaved ends of one org's light work
    assert gate.busy == {"run": 0, "light": 0}


async def test_a_slot_is_settled_with_what_was_spent(store: SqliteServiceStore) -> None:
    await store.create_key("acme", ("research",), now=time.time(), quotas={"searches": 2})
    gate = admission(store, org_runs=None)
    async with gate.slot(ACME, "light"):
        pass  # spent nothing: released, not metered
    async with gate.slot(ACME, "run") as tally:
        tally.searches, tally.pages = 2, 3
    usage = await store.usage("acme", now=time.time())
    assert (usage.searches, usage.pages_read) == (2, 3)
    with pytest.raises(QuotaExceeded) as spent:
        async with gate.slot(ACME, "run"):
            pass
    assert spent.value.retry_after is None and spent.value.meter == "searches"
    assert gate.busy == {"run": 0, "light": 0}
