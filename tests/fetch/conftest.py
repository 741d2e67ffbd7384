"""Fixtures for the fetcher tests: a recording loopback web reached through HTTP_PROXY."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator

import pytest

from sleuth.fetch import FetchSettings, HttpFetcher
from tests.fetch.web import RecordingWeb

MakeFetcher = Callable[..., HttpFetcher]


@pytest.fixture
def web() -> Iterator[RecordingWeb]:
    server = RecordingWeb()
    server.start()
    yield server
    server.close()


@pytest.fixture
def proxied(web: RecordingWeb, monkeypatch: pytest.MonkeyPatch) -> RecordingWeb:
    """Public-looking hosts go through the recording web as a proxy; loopback goes direct."""
    monkeypatch.setenv("HTTP_PROXY", web.origin)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    return web


@pytest.fixture
async def make_fetcher() -> AsyncIterator[MakeFetcher]:
    made: list[HttpFetcher] = []

    def make(**settings: object) -> HttpFetcher:
        fetcher = HttpFetcher(FetchSettings(**settings))  # type: ignore[arg-type]
        made.append(fetcher)
        return fetcher

    yield make
    for fetcher in made:
        await fetcher.aclose()


def make_pdf(pages: list[str], title: str = "Test Document") -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_title(title)
    for text in pages:
        pdf.add_page()
        pdf.set_font("helvetica", size=12)
        pdf.multi_cell(0, 10, text)
    return bytes(pdf.output())
