"""Firecrawl, crw and Bocha (issue 29, item 2) against their recorded answers, beyond what
test_backends.py asks of every HTTP backend: a refused key (401), a 429's Retry-After in the
error, each service's own request fields, and an error told in a 200 body."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest

from sleuth.errors import RateLimitedError, SearchError
from sleuth.ports import SearchQuery
from sleuth.registry import BackendSettings
from sleuth.search.firecrawl import time_filter
from sleuth.search.spec import build_search

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
