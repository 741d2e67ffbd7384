"""Shared helpers: URL keys for dedupe, redirect unwrapping, the keyword ladder, dates, and the
one HTTP error mapping every backend uses (driven through httpx2.MockTransport)."""

from __future__ import annotations

import httpx2
import pytest

from sleuth.errors import RateLimitedError, SearchError
from sleuth.ports import SearchBackend, SearchQuery
from sleuth.registry import BackendSettings
from sleuth.search.common import (
    iso_date,
    keyword_ladder,
    unwrap_redirect,
)
from sleuth.search.spec import build_search
from sleuth.text import keywords
from sleuth.urls import normalize_url


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("https://WWW.Example.com/a/", "https://example.com/a"),
        ("https://example.com/a#section", "https://example.com/a"),
        ("https://example.com/a?utm_source=x&id=3&fbclid=y", "https://example.com/a?id=3"),
        ("https://example.com/a?gclid=1", "https://example.com/a"),
        ("https://example.com:443/a", "https://example.com/a"),
    ],
)
def test_same_page_same_key(a: str, b: str) -> None:
    assert normalize_url(a) == normalize_url(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("https://example.com/a", "https://example.com/b"),
        ("https://example.com/a?id=1", "https://example.com/a?id=2"),
        ("https://example.com/A", "https://example.com/a"),  # paths are case-sensitive
        ("https://example.com:8443/a", "https://example.com/a"),
    ],
)
def test_different_pages_different_keys(a: str, b: str) -> None:
    assert normalize_url(a) != normalize_url(b)


@pytest.mark.parametrize(
    ("wrapped", "real"),
    [
        (
            "https://www.bing.com/news/apiclick.aspx?ref=FexRss&aid=&tid=1"
            "&url=https%3a%2f%2fexample.com%2fstory%3fid%3d7&c=1",
            "https://example.com/story?id=7",
        ),
        ("https://www.google.com/url?sa=t&url=https://example.org/x", "https://example.org/x"),
        (
            "https://duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.net%2F&rut=abc",
            "https://example.net/",
        ),
        (
            "https://r.search.yahoo.com/_ylt=A/RV=2/RE=1/RO=10/RU=https%3a%2f%2fexample.com%2fy/RK=2/RS=z-",
            "https://example.com/y",
        ),
        ("https://example.com/page?ref=home", "https://example.com/page?ref=home"),
    ],
)
def test_unwrap_redirect(wrapped: str, real: str) -> None:
    assert unwrap_redirect(wrapped) == real


def test_query_keywords_drop_stopwords_keep_order() -> None:
    assert keywords("What is the best way to use the Tokio runtime in Rust?") == [
        "Tokio",
        "runtime",
        "Rust",
    ]


def test_keyword_ladder_is_4_then_2_then_1_tokens() -> None:
    question = "how do I configure nginx reverse proxy websocket timeouts for long polling"
    assert keyword_ladder(question) == [
        "configure nginx reverse proxy",
        "configure nginx",
        "configure",
    ]
    assert keyword_ladder("nginx") == []  # nothing shorter to try


@pytest.mark.parametrize(
    ("value", "iso"),
    [
        ("2024-11-02T10:15:00", "2024-11-02"),
        ("2023-11-16T01:36:32.547Z", "2023-11-16"),
        ("2023/11/28 00:00", "2023-11-28"),
        (1577836800, "2020-01-01"),
        ("November 2, 2024", None),
        (None, None),
        ("", None),
    ],
)
def test_iso_date(value: object, iso: str | None) -> None:
    assert iso_date(value) == iso


def brave_with(handler: httpx2.MockTransport) -> SearchBackend:
    env = {"SLEUTH_BRAVE_KEY": "k"}
    return build_search(
        "brave", BackendSettings(env=env, timeout_s=2, extra={"transport": handler})
    )


def transport(status: int, body: bytes = b"{}", **headers: str) -> httpx2.MockTransport:
    return httpx2.MockTransport(
        lambda request: httpx2.Response(status, content=body, headers=headers)
    )


@pytest.mark.parametrize(
    ("status", "body", "message"),
    [
        (500, b"Internal Server Error", "brave: HTTP 500: Internal Server Error"),
        (503, b"upstream down", "brave: HTTP 503: upstream down"),
        (401, b'{"error": "bad key"}', "brave: HTTP 401: the service refused the request"),
        (200, b"<html>maintenance</html>", "brave: returned non-JSON"),
        (200, b'["not", "an", "object"]', "brave: unexpected response shape"),
    ],
)
async def test_http_failures_are_search_errors(status: int, body: bytes, message: str) -> None:
    with pytest.raises(SearchError) as caught:
        await brave_with(transport(status, body)).search(SearchQuery("q"))
    assert not isinstance(caught.value, RateLimitedError)
    assert str(caught.value).startswith(message)
    assert caught.value.backend == "brave"


async def test_429_is_rate_limited_with_retry_after() -> None:
    with pytest.raises(RateLimitedError, match=r"HTTP 429; retry after 12 s"):
        await brave_with(transport(429, b"{}", **{"Retry-After": "12"})).search(SearchQuery("q"))


async def test_timeout_is_a_search_error() -> None:
    def hang(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ReadTimeout("read timed out", request=request)

    with pytest.raises(SearchError, match=r"brave: timed out after 2 s"):
        await brave_with(httpx2.MockTransport(hang)).search(SearchQuery("q"))


async def test_connection_failure_is_a_search_error() -> None:
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("connection refused", request=request)

    with pytest.raises(SearchError, match=r"brave: could not connect") as caught:
        await brave_with(httpx2.MockTransport(refuse)).search(SearchQuery("q"))
    assert caught.value.cause == "unreachable", "a run that finds nothing can say: no network"


async def test_endpoint_override_and_user_agent() -> None:
    seen: list[httpx2.Request] = []

    def record(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(200, json={"hits": []})

    env = {"SLEUTH_HACKERNEWS_ENDPOINT": "http://mirror.test/hn/"}
    backend = build_search(
        "hn", BackendSettings(env=env, extra={"transport": httpx2.MockTransport(record)})
    )
    assert await backend.search(SearchQuery("rust")) == []
    assert str(seen[0].url).startswith("http://mirror.test/hn?query=rust")
    assert seen[0].headers["user-agent"].startswith("Sleuth/")
