"""When the fallback reader turns to the browser, with fakes at the Fetcher boundary."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from sleuth.errors import BlockedURLError, FetchError
from sleuth.fetch.browser import (
    BrowserFallbackFetcher,
    BrowserMode,
    BrowserSettings,
    reading_fetcher,
)
from sleuth.types import Page

LONG = "A paragraph of real article text. " * 20
SHORT = "Loading…"


@dataclass
class ScriptedFetcher:
    """Answers each URL with a page of the given text, or raises the given error."""

    name: str
    answers: dict[str, str | FetchError]
    content_type: str = "text/html"
    scripted: bool = True
    calls: list[str] = field(default_factory=list)
    closed: bool = False

    async def fetch(self, url: str) -> Page:
        self.calls.append(url)
        answer = self.answers[url]
        if isinstance(answer, FetchError):
            raise answer
        return Page(
            url,
            self.name,
            answer,
            "2025-01-01T00:00:00+00:00",
            self.content_type,
            scripted=self.scripted,
        )

    async def aclose(self) -> None:
        self.closed = True


def pair(
    http: str | FetchError, browser: str | FetchError = LONG, content_type: str = "text/html"
) -> tuple[ScriptedFetcher, ScriptedFetcher]:
    url = "http://news.example/a"
    return (
        ScriptedFetcher("http", {url: http}, content_type),
        ScriptedFetcher("browser", {url: browser}),
    )


def reader(
    http: ScriptedFetcher, browser: ScriptedFetcher, mode: BrowserMode = "auto"
) -> BrowserFallbackFetcher:
    return BrowserFallbackFetcher(http, browser, mode, min_text_chars=400)


@pytest.mark.parametrize(
    ("http_answer", "used"),
    [
        (LONG, "http"),
        (SHORT, "browser"),
        (FetchError("no text"), "browser"),
    ],
)
async def test_auto_turns_to_the_browser_only_for_thin_pages(
    http_answer: str | FetchError, used: str
) -> None:
    http, browser = pair(http_answer)
    page = await reader(http, browser).fetch("http://news.example/a")
    assert page.title == used
    assert browser.calls == ([] if used == "http" else ["http://news.example/a"])


@pytest.mark.parametrize(
    "error", [BlockedURLError("private or local address: 10.0.0.1"), FetchError("HTTP 500")]
)
async def test_auto_does_not_retry_refusals_or_server_errors(error: FetchError) -> None:
    http, browser = pair(error)
    with pytest.raises(type(error), match=error.reason):
        await reader(http, browser).fetch("http://news.example/a")
    assert browser.calls == []


async def test_auto_keeps_a_short_page_when_the_browser_fails() -> None:
    http, browser = pair(SHORT, FetchError("browser: timed out"))
    page = await reader(http, browser).fetch("http://news.example/a")
    assert (page.title, page.text) == ("http", SHORT)


async def test_auto_never_renders_a_short_pdf() -> None:
    http, browser = pair(SHORT, content_type="application/pdf")
    await reader(http, browser).fetch("http://news.example/a")
    assert browser.calls == []


@pytest.mark.parametrize(("mode", "used"), [("always", "browser"), ("never", "http")])
async def test_fixed_modes_use_one_fetcher(mode: BrowserMode, used: str) -> None:
    http, browser = pair(LONG)
    fallback = reader(http, browser, mode)
    page = await fallback.fetch("http://news.example/a")
    await fallback.aclose()
    assert page.title == used
    assert len(http.calls) + len(browser.calls) == 1
    assert http.closed
    assert browser.closed


def test_reading_fetcher_skips_the_browser_when_off() -> None:
    http, _ = pair(LONG)
    assert reading_fetcher(http, BrowserSettings(mode="never")) is http
    assert isinstance(reading_fetcher(http, BrowserSettings()), BrowserFallbackFetcher)


async def test_without_playwright_the_browser_is_a_typed_fetch_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sleuth.fetch.browser import BrowserFetcher

    monkeypatch.setitem(__import__("sys").modules, "playwright", None)
    monkeypatch.setitem(__import__("sys").modules, "playwright.async_api", None)
    with pytest.raises(FetchError) as raised:
        await BrowserFetcher(BrowserSettings()).fetch("http://news.example/a")
    assert raised.value.cause == "browser" and "browser unavailable" in raised.value.reason


async def test_no_browser_to_try_keeps_the_pages_own_reason() -> None:
    unavailable = FetchError("browser unavailable: pip install '.[browser]'", cause="browser")
    http, browser = pair(FetchError("no text", cause="no-text"), unavailable)
    with pytest.raises(FetchError) as raised:
        await reader(http, browser).fetch("http://news.example/a")
    assert raised.value.cause == "no-text"
