"""A usage report never waits for the store's writer (issue 26: under load it queued behind every
run's writes, p99 of seconds): answers from the cache not written yet are added to today, and a
batch being written shows once it is."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from sleuth.app.caller import Caller
from sleuth.app.service import Service
from sleuth.store.service_sqlite import SqliteServiceStore

ACME = Caller("acme", how="key")


async def test_a_report_counts_cached_answers_the_store_has_not_written(
    store: SqliteServiceStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    stuck = asyncio.Event()

    async def never_written(*args: Any, **kwargs: Any) -> None:
        await stuck.wait()  # a writer queue that does not move

    monkeypatch.setattr(store, "count_cached", never_written)
    service = Service(object(), store)  # type: ignore[arg-type]
    for _ in range(3):
        service.meter.count("acme")
    report = await asyncio.wait_for(service.usage(ACME), timeout=5)
    assert [d.cached for d in report.days] == [3]
    other = await service.usage(Caller("globex", how="key"))
    assert other.days == ()
    stuck.set()
    await service.aclose()
