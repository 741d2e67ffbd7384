import asyncio
import time

import pytest

from sleuth.engine.engine import Engine
from sleuth.errors import NoSourcesError, SearchError, UsageError
from sleuth.events import (
    Done,
    Event,
    Failed,
    Fetched,
    FetchSkipped,
    Notice,
    Planned,
    ReadStarted,
)
from sleuth.pipeline.write.extractive import ExtractiveWriter
from sleuth.types import ResearchRequest, Result

from .fakes import FakeFetcher, FakeSearch

AUDIT = (
    "Audit log entries in Example Cloud are retained for 90 days by default. On the Enterprise "
    "plan, retention can be extended to 365 days from the security settings page.\n\n"
    "Exports are available as JSON or CSV files and can be streamed to a storage bucket."
)
PRICING = (
    "Enterprise plans include single sign-on, SCIM provisioning and audit log retention of up to "
    "365 days, with a 99.95% uptime agreement."
)
OTHER = "Bananas are a yellow fruit grown in tropical regions around the world."


async def collect(engine: Engine, request: ResearchRequest) -> list[Event]:
    return [e async for e in engine.run(request)]


def result_of(events: list[Event]) -> Result:
    assert isinstance(events[-1], Done), events[-1]
    return events[-1].result


def web(n_hosts: int = 3) -> tuple[FakeSearch, FakeFetcher]:
    hits = [
        ("https://docs.examplecloud.com/audit", "Audit logs", "Audit entries kept 90 days"),
        ("https://examplecloud.com/pricing", "Pricing", "Enterprise: 365 days"),
        ("https://fruit.example/bananas", "Bananas", "yellow fruit"),
    ][:n_hosts]
    pages = {
        hits[0][0]: ("Audit logs", AUDIT),
        hits[1][0]: ("Pricing", PRICING),
        "https://fruit.example/bananas": ("Bananas", OTHER),
    }
    return FakeSearch({"*": hits}), FakeFetcher(pages)


async def test_quick_run_reads_ranks_writes_and_cites() -> None:
    search, fetcher = web()
    engine = Engine(search, fetcher, ExtractiveWriter())
    events = await collect(engine, ResearchRequest("How long are Example Cloud audit logs kept?"))
    result = result_of(events)
    assert isinstance(events[0], Planned)
    assert any(isinstance(e, Notice) and "no LLM" in e.message for e in events)
    assert result.sources[0].url == "https://docs.examplecloud.com/audit"
    assert "90 days" in (result.answer or "")
    assert result.citations and result.citations[0].number == 1
    assert "90 days" in result.citations[0].quote
    assert result.verification.checked == result.verification.supported > 0
    first = result.sources[0].passages[0]
    assert AUDIT[first.start : first.start + len(first.text)] == first.text
    assert result.usage.pages_read == 3 and result.usage.searches == 1


async def test_unread_pages_fall_back_to_snippets_ranked_last() -> None:
    search, fetcher = web()
    fetcher.delays["https://docs.examplecloud.com/audit"] = 5.0
    request = ResearchRequest("Example Cloud audit log retention", read_deadline_s=0.3)
    result = result_of(await collect(Engine(search, fetcher, ExtractiveWriter()), request))
    snippet_sources = [s for s in result.sources if s.snippet]
    assert [s.url for s in snippet_sources] == ["https://docs.examplecloud.com/audit"]
    assert result.sources[-1].snippet
    assert result.to_json()["sources"][-1]["snippet"] is True


async def test_read_phase_stops_soon_after_three_pages_arrive() -> None:
    hits = [(f"https://h{i}.example/p", f"Page {i}", "audit logs") for i in range(10)]
    pages = {u: (t, AUDIT) for u, t, _ in hits}
    fetcher = FakeFetcher(pages, delays={u: 30.0 for u, _, _ in hits[3:]})
    engine = Engine(FakeSearch({"*": hits}), fetcher, ExtractiveWriter())
    started = time.monotonic()
    request = ResearchRequest("audit log retention", settle_wait_s=0.2)
    result = result_of(await collect(engine, request))
    # Seven hanging hosts would take 30 s; the settle rule ends the read phase instead.
    assert time.monotonic() - started < 10
    assert result.usage.pages_read == 3


async def test_zero_sources_stops_before_writing_with_the_cause() -> None:
    search = FakeSearch({}, error=SearchError("connection refused", "fake"))
    events = await collect(
        Engine(search, FakeFetcher({}), ExtractiveWriter()), ResearchRequest("anything at all")
    )
    failed = events[-1]
    assert isinstance(failed, Failed) and failed.exit_code == 3
    assert "connection refused" in failed.error
    assert isinstance(failed.exception, NoSourcesError)


async def test_fallback_backend_is_used_when_primary_finds_nothing() -> None:
    _, fetcher = web()
    primary = FakeSearch({})
    fallback = FakeSearch(
        {"*": [("https://docs.examplecloud.com/audit", "Audit", "90 days")]}, name="wikipedia"
    )
    events = await collect(
        Engine(primary, fetcher, ExtractiveWriter(), fallback=fallback),
        ResearchRequest("audit retention"),
    )
    assert any(isinstance(e, Notice) and "wikipedia" in e.message for e in events)
    assert result_of(events).sources[0].url == "https://docs.examplecloud.com/audit"


async def test_denied_domain_is_skipped_with_reason() -> None:
    search, fetcher = web()
    request = ResearchRequest("audit retention", deny_domains=("examplecloud.com",))
    events = await collect(Engine(search, fetcher, ExtractiveWriter()), request)
    skipped = [e for e in events if isinstance(e, FetchSkipped)]
    assert {e.url for e in skipped} == {
        "https://docs.examplecloud.com/audit",
        "https://examplecloud.com/pricing",
    }
    assert all("denied" in e.reason for e in skipped)
    assert "https://examplecloud.com/pricing" not in fetcher.fetched


@pytest.mark.parametrize("question", ["", "   ", "x" * 10_000])
async def test_bad_questions_fail_clearly(question: str) -> None:
    search, fetcher = web()
    events = await collect(Engine(search, fetcher, ExtractiveWriter()), ResearchRequest(question))
    assert isinstance(events[-1], Failed)
    assert isinstance(events[-1].exception, UsageError)
    assert search.asked == []


async def test_max_runtime_stops_the_run_with_exit_5() -> None:
    _, fetcher = web()
    slow = FakeSearch({"*": []})

    async def hang(query: object) -> list[object]:
        await asyncio.sleep(10)
        return []

    slow.search = hang  # type: ignore[method-assign]
    events = await collect(
        Engine(slow, fetcher, ExtractiveWriter()), ResearchRequest("audit", max_runtime_s=0.2)
    )
    assert isinstance(events[-1], Failed) and events[-1].exit_code == 5


async def test_since_drops_stale_dated_pages_but_keeps_undated_ones() -> None:
    from datetime import date

    from sleuth.types import SearchResult

    class Dated(FakeSearch):
        async def search(self, query):  # type: ignore[no-untyped-def]
            return [
                SearchResult("https://old.example/a", "Old", "audit logs", "fake", 1, "2019-03-01"),
                SearchResult("https://new.example/b", "New", "audit logs", "fake", 2, "2025-05-01"),
                SearchResult("https://undated.example/c", "Undated", "audit logs", "fake", 3),
            ]

    pages = {
        u: ("t", AUDIT)
        for u in ("https://old.example/a", "https://new.example/b", "https://undated.example/c")
    }
    engine = Engine(Dated({}), FakeFetcher(pages), ExtractiveWriter())
    events = await collect(
        engine,
        ResearchRequest("audit log retention", since=date(2024, 1, 1), dedupe_threshold=None),
    )
    kept = {s.url for s in result_of(events).sources}
    assert kept == {"https://new.example/b", "https://undated.example/c"}
    stale = [e for e in events if isinstance(e, FetchSkipped) and e.cause == "stale"]
    assert [e.url for e in stale] == ["https://old.example/a"]


async def test_snippet_fragments_still_give_a_cited_answer() -> None:
    hits = [
        ("https://a.example/x", "Audit", "audit logs 90 days"),
        ("https://b.example/y", "Logs", "retention: 90 days"),
    ]
    engine = Engine(FakeSearch({"*": hits}), FakeFetcher({}), ExtractiveWriter())
    result = result_of(await collect(engine, ResearchRequest("audit log retention")))
    assert all(s.snippet for s in result.sources)
    assert result.answer and "[1]" in result.answer
    assert result.citations and result.verification.supported == result.verification.checked


async def test_read_start_announces_the_pages_and_each_gets_one_fetch_event() -> None:
    search, fetcher = web()
    engine = Engine(search, fetcher, ExtractiveWriter())
    events = await collect(engine, ResearchRequest("How long are Example Cloud audit logs kept?"))
    (start,) = [i for i, e in enumerate(events) if isinstance(e, ReadStarted)]
    pages = events[start]
    assert isinstance(pages, ReadStarted) and pages.pages == 3
    after = events[start + 1 :]
    fetched = [e for e in after if isinstance(e, Fetched | FetchSkipped)]
    assert len(fetched) == 3  # read, skipped, or cut off: one event each
    assert not any(isinstance(e, Fetched) for e in events[:start])
