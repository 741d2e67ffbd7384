"""Every task a run starts is owned by the run: closing its event iterator mid-read, or the run
failing, leaves no triage, page read or follow-up task behind."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from sleuth.engine import Engine, Stages
from sleuth.events import Done, Failed, Fetched
from sleuth.pipeline.write.extractive import ExtractiveWriter
from sleuth.ports import SearchQuery
from sleuth.think.hops import Triage
from sleuth.types import ResearchRequest, SearchResult, Source
from tests.engine.fakes import FakeFetcher, FakeSearch

TEXT = "Example Cloud keeps audit logs for 90 days by default. " * 8
URLS = [f"https://site{i}.example/page" for i in range(6)]


class SlowHopper:
    """A triage that never finishes on its own (a model that hangs)."""

    def __init__(self) -> None:
        self.cancelled = False

    async def triage(self, question: str) -> Triage:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        raise AssertionError("unreachable")

    async def bridge(self, question: str, triage: Triage, sources: Sequence[Source]) -> str | None:
        return None


def others() -> set[asyncio.Task[object]]:
    return {t for t in asyncio.all_tasks() if t is not asyncio.current_task()}


def engine(hopper: SlowHopper, search: FakeSearch | None = None) -> Engine:
    pages = {u: ("t", TEXT) for u in URLS}
    fetcher = FakeFetcher(
        pages, delays={u: (0.0 if i == 0 else 3600.0) for i, u in enumerate(URLS)}
    )
    search = search or FakeSearch({"*": [(u, "t", "audit logs") for u in URLS]})
    return Engine(search, fetcher, ExtractiveWriter(), stages=Stages(hopper=hopper))


async def test_closing_the_iterator_mid_read_cancels_every_task() -> None:
    hopper = SlowHopper()
    before = others()
    events = engine(hopper).run(ResearchRequest("audit log retention?"))
    async for event in events:
        if isinstance(event, Fetched):  # one page read, five still reading, triage pending
            assert len(others() - before) >= 6
            break
    await events.aclose()  # type: ignore[attr-defined]
    assert others() - before == set()
    assert hopper.cancelled


class BrokenSearch(FakeSearch):
    """A backend with a bug: it raises something that is not a SearchError."""

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        raise RuntimeError("adapter bug")


async def test_a_failed_run_ends_with_failed_and_leaves_no_task_behind() -> None:
    hopper = SlowHopper()
    before = others()
    broken = BrokenSearch({})
    seen = [e async for e in engine(hopper, broken).run(ResearchRequest("audit log retention?"))]
    assert isinstance(seen[-1], Failed) and "adapter bug" in seen[-1].error
    assert others() - before == set()
    assert hopper.cancelled


async def test_events_are_numbered_and_carry_the_run_id() -> None:
    hopper = SlowHopper()
    fetcher_engine = engine(hopper)
    fetcher_engine.parts.fetcher.delays.clear()  # type: ignore[attr-defined]
    seen = [e async for e in fetcher_engine.run(ResearchRequest("audit?", max_runtime_s=30), "r1")]
    assert isinstance(seen[-1], Done)
    assert [e.seq for e in seen] == list(range(1, len(seen) + 1))
    assert {e.run_id for e in seen} == {"r1"}
    assert all(e.to_json()["type"] == e.kind for e in seen)
