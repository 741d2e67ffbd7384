"""Every HTTP backend against its recorded responses: success, empty, rate-limited, malformed."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from sleuth.errors import MissingKeyError, RateLimitedError, SearchError
from sleuth.ports import SearchQuery
from sleuth.registry import BackendSettings
from sleuth.search.spec import build_search
from sleuth.types import SearchResult

from .replay import HTTP_BACKENDS, ReplayServer

QUERY = "rust async runtime"

# backend -> (first url, first title, first published, count) in the recorded success answer
EXPECTED = {
    "searxng": ("https://tokio.rs/", "Tokio - An asynchronous Rust runtime", None, 3),
    "brave": ("https://tokio.rs/", "Tokio - An asynchronous Rust runtime", "2024-11-02", 2),
    "tavily": ("https://tokio.rs/", "Tokio - An asynchronous Rust runtime", None, 2),
    "exa": ("https://tokio.rs/", "Tokio - An asynchronous Rust runtime", "2023-11-16", 2),
    "firecrawl": ("https://tokio.rs/", "Tokio - An asynchronous Rust runtime", None, 2),
    "crw": ("https://tokio.rs/", "Tokio - An asynchronous Rust runtime", None, 3),
    "bocha": ("https://tokio.rs/", "Tokio - An asynchronous Rust runtime", "2024-11-02", 2),
    "wikipedia": ("https://en.wikipedia.org/wiki/Async/await", "Async/await", None, 3),
    "arxiv": (
        "http://arxiv.org/abs/2306.00001v1",
        "Understanding and Detecting Async Bugs in Rust",
        "2023-06-01",
        2,
    ),
    "github": ("https://github.com/tokio-rs/tokio", "tokio-rs/tokio", "2024-11-29", 2),
    "hackernews": (
        "https://tokio.rs/blog/2019-02-tokio-0-1-15",
        "Announcing Tokio 0.1.15: a Rust async runtime",
        "2019-02-11",
        2,
    ),
    "stackexchange": (
        "https://stackoverflow.com/questions/59642576/what-is-the-difference-between-tokio-and-async-std",
        "What is the difference between tokio and async-std?",
        "2020-01-01",
        2,
    ),
    "pubmed": (
        "https://pubmed.ncbi.nlm.nih.gov/38012345/",
        "Fast asynchronous pipelines for sequence alignment written in Rust.",
        "2023-11-28",
        2,
    ),
    "semanticscholar": (
        "https://www.semanticscholar.org/paper/649def34f8be52c8b66281af98ae884c09aef38b",
        "An Empirical Study of Async Rust Bugs",
        "2024-04-12",
        2,
    ),
    "openalex": (
        "https://doi.org/10.1145/3597503.3639123",
        "An Empirical Study of Async Rust Bugs",
        "2024-04-12",
        2,
    ),
}


def settings(replay: ReplayServer, **env: str) -> BackendSettings:
    return BackendSettings(env=replay.env() | env, timeout_s=5)


async def run(replay: ReplayServer, name: str, scenario: str, **kwargs: Any) -> list[SearchResult]:
    replay.scenario = scenario
    backend = build_search(name, settings(replay))
    return await backend.search(SearchQuery(QUERY, **kwargs))


def test_every_http_backend_has_an_expectation() -> None:
    assert set(EXPECTED) == set(HTTP_BACKENDS)


@pytest.mark.parametrize("name", HTTP_BACKENDS)
async def test_success_is_parsed_in_order(replay: ReplayServer, name: str) -> None:
    results = await run(replay, name, "success")
    url, title, published, count = EXPECTED[name]
    assert len(results) == count
    assert [r.rank for r in results] == list(range(1, count + 1))
    assert {r.backend for r in results} == {name}
    first = results[0]
    assert (first.url, first.title, first.published) == (url, title, published)
    assert all(r.snippet and "<" not in r.snippet for r in results)


@pytest.mark.parametrize("name", HTTP_BACKENDS)
async def test_empty_answer_is_an_empty_list(replay: ReplayServer, name: str) -> None:
    assert await run(replay, name, "empty") == []


@pytest.mark.parametrize("name", HTTP_BACKENDS)
async def test_throttling_is_a_rate_limit_error(replay: ReplayServer, name: str) -> None:
    with pytest.raises(RateLimitedError) as caught:
        await run(replay, name, "ratelimited")
    assert caught.value.backend == name
    assert name in str(caught.value)


@pytest.mark.parametrize("name", HTTP_BACKENDS)
async def test_malformed_answer_is_a_search_error(replay: ReplayServer, name: str) -> None:
    with pytest.raises(SearchError) as caught:
        await run(replay, name, "malformed")
    assert not isinstance(caught.value, RateLimitedError)
    assert caught.value.backend == name
    assert str(caught.value).startswith(f"{name}: ")


@pytest.mark.parametrize(
    ("name", "var"),
    [
        ("brave", "SLEUTH_BRAVE_KEY"),
        ("tavily", "SLEUTH_TAVILY_KEY"),
        ("exa", "SLEUTH_EXA_KEY"),
        ("firecrawl", "SLEUTH_FIRECRAWL_KEY"),
        ("bocha", "SLEUTH_BOCHA_KEY"),
        ("searxng", "SLEUTH_SEARXNG_URL"),
        ("crw", "SLEUTH_CRW_URL"),
    ],
)
def test_missing_key_names_the_variable(name: str, var: str) -> None:
    with pytest.raises(MissingKeyError, match=var):
        build_search(name, BackendSettings(env={}))


@pytest.mark.parametrize(
    ("name", "header", "value"),
    [
        ("brave", "x-subscription-token", "replay-key"),
        ("tavily", "authorization", "Bearer replay-key"),
        ("exa", "x-api-key", "replay-key"),
        ("firecrawl", "authorization", "Bearer replay-key"),
        ("bocha", "authorization", "Bearer replay-key"),
    ],
)
async def test_keys_are_sent(replay: ReplayServer, name: str, header: str, value: str) -> None:
    await run(replay, name, "success")
    assert replay.requests[-1].headers[header] == value


async def test_optional_tokens_are_sent_when_set(replay: ReplayServer) -> None:
    env = {
        "SLEUTH_GITHUB_TOKEN": "ghp_x",
        "SLEUTH_S2_KEY": "s2k",
        "SLEUTH_OPENALEX_MAILTO": "a@b.c",
    }
    for name in ("github", "semanticscholar", "openalex"):
        await build_search(name, settings(replay, **env)).search(SearchQuery(QUERY))
    github, s2, openalex = replay.requests
    assert github.headers["authorization"] == "Bearer ghp_x"
    assert s2.headers["x-api-key"] == "s2k"
    assert openalex.params["mailto"] == "a@b.c"


# What each service's time filter looks like for --since 2024-01-15.
SINCE_PARAMS = {
    "brave": ("freshness", "2024-01-15to"),
    "tavily": ("start_date", "2024-01-15"),
    "exa": ("startPublishedDate", "2024-01-15T00:00:00.000Z"),
    "bocha": ("freshness", "2024-01-15.."),
    "github": ("q", "rust async runtime pushed:>=2024-01-15"),
    "hackernews": ("numericFilters", "created_at_i>1705276800"),
    "stackexchange": ("fromdate", "1705276800"),
    "pubmed": ("mindate", "2024/01/15"),
    "semanticscholar": ("publicationDateOrYear", "2024-01-15:"),
    "openalex": ("filter", "from_publication_date:2024-01-15"),
    "arxiv": (
        "search_query",
        "all:rust AND all:async AND all:runtime AND submittedDate:[202401150000",
    ),
}


@pytest.mark.parametrize("name", sorted(SINCE_PARAMS))
async def test_since_maps_to_the_service_time_filter(replay: ReplayServer, name: str) -> None:
    await run(replay, name, "success", since=date(2024, 1, 15))
    key, expected = SINCE_PARAMS[name]
    sent = replay.requests[0]
    value = (sent.body or {}).get(key) if sent.method == "POST" else sent.params.get(key)
    assert str(value).startswith(expected)


async def test_searxng_time_range_and_throttled_engines(replay: ReplayServer) -> None:
    await run(replay, "searxng", "success", since=date.today())
    assert replay.requests[0].params["time_range"] == "day"


async def test_stackexchange_site_from_spec(replay: ReplayServer) -> None:
    await build_search("stackexchange:superuser", settings(replay)).search(SearchQuery(QUERY))
    assert replay.requests[0].params["site"] == "superuser"


async def test_wikipedia_language_shapes_page_urls(replay: ReplayServer) -> None:
    backend = build_search("wikipedia", settings(replay, SLEUTH_WIKIPEDIA_LANG="de"))
    results = await backend.search(SearchQuery(QUERY))
    assert results[1].url == "https://de.wikipedia.org/wiki/Rust_%28programming_language%29"
    assert results[1].snippet == "Rust is a general-purpose programming language & more"


async def test_limit_is_passed_and_respected(replay: ReplayServer) -> None:
    results = await run(replay, "searxng", "success", limit=2)
    assert len(results) == 2
    await run(replay, "hackernews", "success", limit=3)
    assert replay.requests[-1].params["hitsPerPage"] == "3"
