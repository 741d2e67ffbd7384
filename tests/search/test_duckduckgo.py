"""DuckDuckGo and news through ddgs: an injected fake client at the library boundary, the
recorded replay files, throttling that never looks empty, and process-wide spacing."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException

from sleuth.errors import RateLimitedError, SearchError, UsageError
from sleuth.ports import SearchQuery
from sleuth.registry import BackendSettings
from sleuth.search.duckduckgo import Pacer
from sleuth.search.spec import build_search

from .replay import FIXTURES


class FakeDDGS:
    """Stands in for `ddgs.DDGS`: returns scripted rows or raises, and records each call."""

    def __init__(self, rows: list[dict[str, Any]] | None = None, error: Exception | None = None):
        self.rows = rows or []
        self.error = error
        self.calls: list[tuple[str, str, dict[str, Any]]] = []

    def text(self, query: str, **kwargs: Any) -> list[dict[str, Any]]:
        return self._answer("text", query, kwargs)

    def news(self, query: str, **kwargs: Any) -> list[dict[str, Any]]:
        return self._answer("news", query, kwargs)

    def _answer(self, kind: str, query: str, kwargs: dict[str, Any]) -> list[dict[str, Any]]:
        self.calls.append((kind, query, kwargs))
        if self.error:
            raise self.error
        return self.rows


def with_fake(fake: FakeDDGS, spec: str = "duckduckgo") -> Any:
    return build_search(
        spec, BackendSettings(env={"SLEUTH_DDG_DELAY_MS": "0"}, extra={"ddgs": fake})
    )


def replayed(scenario: str, spec: str = "duckduckgo") -> Any:
    env = {
        "SLEUTH_DDG_REPLAY": str(FIXTURES / "duckduckgo" / f"{scenario}.json"),
        "SLEUTH_DDG_DELAY_MS": "0",
    }
    return build_search(spec, BackendSettings(env=env))


async def test_text_results_from_the_replay_file() -> None:
    results = await replayed("success").search(SearchQuery("rust async runtime"))
    assert [(r.rank, r.url) for r in results] == [
        (1, "https://tokio.rs/"),
        (2, "https://async.rs/"),
        (3, "https://rust-lang.github.io/async-book/"),
    ]
    assert results[0].backend == "duckduckgo"
    assert results[0].snippet.startswith("Tokio is an asynchronous runtime")


async def test_news_is_dated_and_unwraps_publisher_urls() -> None:
    results = await replayed("success", "news").search(SearchQuery("rust async runtime"))
    assert results[0].url == "https://www.infoq.com/news/2024/11/tokio-1-42/"
    assert results[0].published == "2024-11-27"
    assert results[0].backend == "news"
    assert results[0].snippet.startswith("InfoQ: ")
    assert results[1].url == "https://www.theregister.com/2024/10/02/async_rust/"


@pytest.mark.parametrize("spec", ["duckduckgo", "news"])
async def test_empty_replay_is_empty(spec: str) -> None:
    assert await replayed("empty", spec).search(SearchQuery("zzqx")) == []


@pytest.mark.parametrize("scenario", ["ratelimited", "noresults"])
@pytest.mark.parametrize("spec", ["duckduckgo", "news"])
async def test_throttling_is_never_an_empty_round(scenario: str, spec: str) -> None:
    with pytest.raises(RateLimitedError, match=spec):
        await replayed(scenario, spec).search(SearchQuery("rust"))


@pytest.mark.parametrize("spec", ["duckduckgo", "news"])
async def test_malformed_rows_are_a_search_error(spec: str) -> None:
    with pytest.raises(SearchError, match="unexpected ddgs result"):
        await replayed("malformed", spec).search(SearchQuery("rust"))


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (RatelimitException("202 Ratelimit"), RateLimitedError),
        (DDGSException("No results found."), RateLimitedError),
        (TimeoutException("timed out"), SearchError),
        (DDGSException("ConnectError: boom"), SearchError),
    ],
)
async def test_ddgs_exceptions_map_to_sleuth_errors(
    error: Exception, kind: type[SearchError]
) -> None:
    with pytest.raises(kind) as caught:
        await with_fake(FakeDDGS(error=error)).search(SearchQuery("rust"))
    assert type(caught.value) is kind
    assert caught.value.backend == "duckduckgo"


async def test_query_options_reach_ddgs() -> None:
    fake = FakeDDGS([{"title": "T", "href": "https://a.example/", "body": "b"}])
    since = date.today() - timedelta(days=5)
    await with_fake(fake, "duckduckgo:bing").search(SearchQuery("rust", limit=3, since=since))
    kind, query, kwargs = fake.calls[0]
    assert (kind, query) == ("text", "rust")
    assert kwargs["max_results"] == 3
    assert kwargs["timelimit"] == "w"
    assert kwargs["backend"] == "bing"


async def test_results_are_capped_at_the_limit() -> None:
    rows = [{"title": f"T{i}", "href": f"https://a.example/{i}", "body": "b"} for i in range(9)]
    results = await with_fake(FakeDDGS(rows)).search(SearchQuery("rust", limit=4))
    assert [r.rank for r in results] == [1, 2, 3, 4]


def test_pacer_spaces_calls() -> None:
    now = [100.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    pacer = Pacer(clock=lambda: now[0], sleep=sleep)
    pacer.wait(1.0)
    pacer.wait(1.0)
    now[0] += 0.25
    pacer.wait(1.0)
    now[0] += 5
    pacer.wait(1.0)
    assert slept == [1.0, 0.75]


def test_bad_delay_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="SLEUTH_DDG_DELAY_MS"):
        build_search("duckduckgo", BackendSettings(env={"SLEUTH_DDG_DELAY_MS": "soon"}))
