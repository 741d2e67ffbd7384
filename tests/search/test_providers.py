"""Firecrawl, crw and Bocha (issue 29, item 2) against their recorded answers, beyond what
test_backends.py asks of every HTTP backend: a refused key (401), a 429's Retry-After in the
error, each service's own request fields, an error told in a 200 body, and `:scrape` (the
service's copy of a page, standing in only for a read of Sleuth's own that failed)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest

from sleuth.errors import RateLimitedError, SearchError, UsageError
from sleuth.pipeline.candidates import Candidate
from sleuth.pipeline.gather import _read_for
from sleuth.pipeline.read import ReadOutcome
from sleuth.ports import SearchQuery
from sleuth.registry import BackendSettings
from sleuth.search.firecrawl import time_filter
from sleuth.search.spec import build_search
from sleuth.types import Page, SearchResult

from .replay import ReplayServer

NEW = ("firecrawl", "crw", "bocha")


def backend(replay: ReplayServer, name: str, **env: str) -> Any:
    return build_search(name, BackendSettings(env=replay.env() | env, timeout_s=5))


async def ask(replay: ReplayServer, name: str, scenario: str = "success", **kw: Any) -> Any:
    replay.scenario = scenario
    return await backend(replay, name).search(SearchQuery("rust async runtime", **kw))


@pytest.mark.parametrize("name", NEW)
async def test_a_refused_key_is_a_search_error_saying_so(replay: ReplayServer, name: str) -> None:
    with pytest.raises(SearchError) as caught:
        await ask(replay, name, "unauthorized")
    assert not isinstance(caught.value, RateLimitedError)
    assert caught.value.backend == name and caught.value.cause == "refused"
    assert str(caught.value) == f"{name}: HTTP 401: the service refused the request (check the key)"


@pytest.mark.parametrize("name", NEW)
async def test_429_carries_its_retry_after(replay: ReplayServer, name: str) -> None:
    with pytest.raises(RateLimitedError) as caught:
        await ask(replay, name, "ratelimited")
    assert str(caught.value) == f"{name}: rate limited (HTTP 429; retry after 30 s)"


async def test_firecrawl_request_is_the_documented_v2_search(replay: ReplayServer) -> None:
    await ask(replay, "firecrawl", limit=5, language="de-AT", since=date.today())
    sent = replay.requests[-1]
    assert sent.method == "POST" and sent.path == ""  # SLEUTH_FIRECRAWL_ENDPOINT is the URL
    assert sent.body == {"query": "rust async runtime", "limit": 5, "tbs": "qdr:d", "country": "AT"}
    assert "scrapeOptions" not in sent.body  # Sleuth reads the pages itself


async def test_crw_asks_v1_search_under_its_base_url_with_lang(replay: ReplayServer) -> None:
    results = await ask(replay, "crw", language="de-AT")
    sent = replay.requests[-1]
    assert sent.path == "v1/search" and sent.body["lang"] == "de"
    assert "authorization" not in sent.headers  # no SLEUTH_CRW_KEY: a server without auth
    assert [r.backend for r in results] == ["crw"] * 3
    await backend(replay, "crw", SLEUTH_CRW_KEY="crw-key").search(SearchQuery("q"))
    assert replay.requests[-1].headers["authorization"] == "Bearer crw-key"


async def test_crw_base_url_from_sleuth_crw_url(replay: ReplayServer) -> None:
    env = {"SLEUTH_CRW_URL": f"{replay.url}/crw/"}
    settings = BackendSettings(env=env, timeout_s=5)
    results = await build_search("crw", settings).search(SearchQuery("rust async runtime"))
    assert len(results) == 3 and replay.requests[-1].path == "v1/search"


async def test_bocha_request_asks_for_summaries(replay: ReplayServer) -> None:
    results = await ask(replay, "bocha", limit=80, language="zh-CN")
    body = replay.requests[-1].body
    assert body == {"query": "rust async runtime", "count": 50, "summary": True,
                    "freshness": "noLimit"}  # fmt: skip
    assert results[0].snippet.startswith("Tokio is an asynchronous runtime")  # the summary
    assert results[1].snippet.startswith("本文比较 Rust 的两个 异步运行时")  # snippet, tags gone
    assert results[1].published == "2023-12-18"


async def test_an_error_told_in_a_200_body_is_a_search_error(
    replay: ReplayServer, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tests.search.replay.FIXTURES", tmp_path)
    for name, body in (
        ("firecrawl", '{"success": false, "error": "Insufficient credits"}'),
        ("bocha", '{"code": "403", "msg": "insufficient balance", "log_id": "x"}'),
    ):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "success.200.json").write_text(body)
        with pytest.raises(SearchError, match=f"^{name}: refused.*(credits|balance)"):
            await ask(replay, name)


@pytest.mark.parametrize(
    ("days", "tbs"),
    [(0, "qdr:d"), (1, "qdr:d"), (5, "qdr:w"), (20, "qdr:m"), (200, "qdr:y"), (900, None)],
)
def test_recency_buckets_never_cut_more_than_asked(days: int, tbs: str | None) -> None:
    assert time_filter(days) == tbs


async def test_a_since_past_a_year_sends_no_time_filter(replay: ReplayServer) -> None:
    await ask(replay, "firecrawl", since=date.today() - timedelta(days=800))
    assert "tbs" not in replay.requests[-1].body


async def test_scrape_asks_for_markdown_and_keeps_it_as_plain_text(replay: ReplayServer) -> None:
    replay.scenario = "scraped"
    results = await backend(replay, "firecrawl:scrape").search(SearchQuery("rust async runtime"))
    assert replay.requests[-1].body["scrapeOptions"] == {
        "formats": ["markdown"],
        "onlyMainContent": True,
    }
    tokio, smol = results
    assert tokio.scraped is not None and tokio.scraped.startswith(
        "Build reliable network applications without compromising speed.\n\nTokio is an "
        "asynchronous runtime for the Rust programming language. It provides"
    )
    assert "](" not in tokio.scraped and "**" not in tokio.scraped and "Tokio logo" in tokio.scraped
    assert smol.scraped is None  # Firecrawl could not scrape it: Sleuth's own read only
    assert tokio.snippet.startswith("Tokio is an event-driven")  # the snippet is unchanged
    replay.scenario = "scraped"
    crw = await backend(replay, "crw:scrape").search(SearchQuery("q"))
    assert replay.requests[-1].body["scrapeOptions"]["formats"] == ["markdown"]
    assert (
        crw[0].scraped
        == "Tokio\n\nTokio is an asynchronous runtime for the Rust programming language."
    )


async def test_without_scrape_nothing_scraped_is_kept(replay: ReplayServer) -> None:
    results = await ask(replay, "firecrawl", "scraped")
    assert {r.scraped for r in results} == {None}


@pytest.mark.parametrize("name", ["firecrawl", "crw"])
def test_an_unknown_option_is_refused(replay: ReplayServer, name: str) -> None:
    with pytest.raises(UsageError, match=f"the {name} search backend takes no option but scrape"):
        backend(replay, f"{name}:deep")


def test_a_scraped_page_stands_in_only_for_a_failed_read() -> None:
    def cand(url: str) -> Candidate:
        return Candidate(SearchResult(url, "T", "s", "firecrawl", 1, scraped="Page text."), 1.0, 1)

    outcome = ReadOutcome(failed={"http://a/": "http 403", "http://b/": "blocked"})
    outcome.blocked.add("http://b/")
    outcome.unfinished.append("http://c/")
    rescued = _read_for(cand("http://a/"), outcome)
    assert rescued.page is not None and rescued.page.text == "Page text."
    assert rescued.page.content_type == "text/markdown" and rescued.page.url == "http://a/"
    assert _read_for(cand("http://b/"), outcome).page is None  # the guard refused it
    assert _read_for(cand("http://c/"), outcome).page is None  # never checked: deadline
    read = Page("http://d/", "D", "Sleuth's own read.", "2026-01-01T00:00:00+00:00")
    outcome.pages["http://d/"] = read
    assert _read_for(cand("http://d/"), outcome).page is read  # its own read wins
