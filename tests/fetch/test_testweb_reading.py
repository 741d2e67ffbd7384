"""HttpFetcher against the shared loopback test web: real-looking sites and misbehaving hosts,
reached under their real URLs through HTTP_PROXY."""

from __future__ import annotations

import pytest

from sleuth.errors import BlockedURLError, FetchError
from tests.fetch.conftest import MakeFetcher
from tests.testweb.pdfs import SP800_92_TITLE, SP800_92_URL
from tests.testweb.problems import (
    BIG_URL,
    BINARY_URL,
    DRIP_URL,
    ERROR_URL,
    GZIP_BOMB_URL,
    SECRET_PATH,
    UNDECODABLE_URL,
)
from tests.testweb.server import TestWeb


@pytest.mark.parametrize(
    ("url", "published"),
    [
        ("http://realpython.com/async-io-python/", "2023-06-21T10:00:00+00:00"),
        (
            "http://news.syndicator.example/tech/2023/async-io-python-complete-walkthrough",
            "2023-06-28T08:30:00+00:00",
        ),
        ("http://blog.example.com/2019/06/getting-started-with-asyncio", "2019-06-14"),
    ],
    ids=["jsonld", "meta", "time"],
)
async def test_dated_articles(
    url: str, published: str, testweb_env: TestWeb, make_fetcher: MakeFetcher
) -> None:
    page = await make_fetcher().fetch(url)
    assert page.published == published
    assert "asyncio" in page.text.lower()
    assert testweb_env.hits == [url]


async def test_pdf_by_extension(testweb_env: TestWeb, make_fetcher: MakeFetcher) -> None:
    page = await make_fetcher().fetch(SP800_92_URL)
    assert page.content_type == "application/pdf"
    assert "log management" in page.text.lower()
    assert page.title == SP800_92_TITLE


async def test_big_page_is_truncated(testweb_env: TestWeb, make_fetcher: MakeFetcher) -> None:
    page = await make_fetcher(max_bytes=400_000).fetch(BIG_URL)
    assert "filler sentence" in page.text
    assert len(page.text) <= 400_000


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        (BINARY_URL, "undecodable"),
        (GZIP_BOMB_URL, "no text"),  # 100 MB of spaces, cut at the cap: nothing to read
        (DRIP_URL, "timeout"),
        (ERROR_URL, "http 500"),
    ],
)
async def test_problem_hosts_fail_with_a_reason(
    url: str, reason: str, testweb_env: TestWeb, make_fetcher: MakeFetcher
) -> None:
    with pytest.raises(FetchError, match=reason):
        await make_fetcher(max_bytes=1_000_000, total_timeout_s=1.5).fetch(url)


async def test_undecodable_bytes_are_replaced_not_fatal(
    testweb_env: TestWeb, make_fetcher: MakeFetcher
) -> None:
    page = await make_fetcher().fetch(UNDECODABLE_URL)
    assert "asyncio event loops" in page.text
    assert "\ufffd" in page.text


async def test_redirect_to_the_test_webs_own_secret_is_never_followed(
    testweb_env: TestWeb, make_fetcher: MakeFetcher
) -> None:
    testweb_env.add_redirect("http://short.example.net/x", testweb_env.base + SECRET_PATH)
    with pytest.raises(BlockedURLError):
        await make_fetcher().fetch("http://short.example.net/x")
    assert testweb_env.hits == ["http://short.example.net/x"]
