"""Service-specific throttle and error signals beyond HTTP 429, at the HTTP boundary."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from sleuth.errors import RateLimitedError, SearchError
from sleuth.ports import SearchQuery
from sleuth.registry import BackendSettings
from sleuth.search.duckduckgo import delay_s
from sleuth.search.spec import build_search


def answering(status: int, body: Any = None, text: str = "", **headers: str) -> BackendSettings:
    def handle(request: httpx2.Request) -> httpx2.Response:
        if body is not None:
            return httpx2.Response(status, json=body, headers=headers)
        return httpx2.Response(status, text=text, headers=headers)

    env = {"SLEUTH_SEARXNG_URL": "http://searx.test"}
    return BackendSettings(env=env, extra={"transport": httpx2.MockTransport(handle)})


async def test_searxng_with_every_engine_throttled_is_rate_limited() -> None:
    body = {
        "query": "q",
        "results": [],
        "unresponsive_engines": [
            ["duckduckgo", "too many requests"],
            ["google", "CAPTCHA"],
        ],
    }
    with pytest.raises(RateLimitedError, match="searxng: rate limited"):
        await build_search("searxng", answering(200, body)).search(SearchQuery("q"))


async def test_searxng_with_one_engine_timing_out_is_just_empty() -> None:
    body = {"query": "q", "results": [], "unresponsive_engines": [["google", "timeout"]]}
    assert await build_search("searxng", answering(200, body)).search(SearchQuery("q")) == []


async def test_github_403_with_exhausted_quota_is_rate_limited() -> None:
    settings = answering(403, {"message": "forbidden"}, **{"x-ratelimit-remaining": "0"})
    with pytest.raises(RateLimitedError):
        await build_search("github", settings).search(SearchQuery("q"))


async def test_github_403_otherwise_is_a_plain_error() -> None:
    settings = answering(
        403, {"message": "Resource not accessible"}, **{"x-ratelimit-remaining": "9"}
    )
    with pytest.raises(SearchError) as caught:
        await build_search("github", settings).search(SearchQuery("q"))
    assert not isinstance(caught.value, RateLimitedError)


async def test_arxiv_error_entry_is_a_search_error() -> None:
    feed = """<feed xmlns="http://www.w3.org/2005/Atom"><entry>
      <id>http://arxiv.org/api/errors#incorrect_id_format_for_1234</id>
      <title>Error</title><summary>incorrect id format for 1234</summary>
      <published>2024-01-01T00:00:00Z</published></entry></feed>"""
    with pytest.raises(SearchError, match="arxiv: API error: incorrect id format"):
        await build_search("arxiv", answering(200, text=feed)).search(SearchQuery("q"))


async def test_stackexchange_other_api_errors_are_search_errors() -> None:
    body = {"error_id": 400, "error_name": "bad_parameter", "error_message": "site is required"}
    with pytest.raises(SearchError, match="bad_parameter") as caught:
        await build_search("stackexchange", answering(400, body)).search(SearchQuery("q"))
    assert not isinstance(caught.value, RateLimitedError)


async def test_pubmed_esearch_error_is_a_search_error() -> None:
    body = {"esearchresult": {"ERROR": "Invalid query"}}
    with pytest.raises(SearchError, match="pubmed: esearch: Invalid query"):
        await build_search("pubmed", answering(200, body)).search(SearchQuery("q"))


def test_ddg_delay_defaults_to_one_second() -> None:
    assert delay_s(BackendSettings()) == 1.0
    assert delay_s(BackendSettings(env={"SLEUTH_DDG_DELAY_MS": "250"})) == 0.25
