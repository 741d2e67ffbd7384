"""The default site is what other tests rely on it to be: boilerplate around extractable main
text, dates where promised, a near-duplicate pair, real PDFs, and pages that misbehave."""

from __future__ import annotations

import zlib
from collections.abc import Iterator

import httpx2
import pypdfium2
import pytest
import trafilatura

from tests.testweb import TestWeb, site
from tests.testweb.pages import Article
from tests.testweb.problems import BIG_BYTES, BOMB_BYTES, DRIP_BYTES


@pytest.fixture
def client(testweb: TestWeb) -> Iterator[httpx2.Client]:
    with httpx2.Client(proxy=testweb.base, timeout=5, trust_env=False, verify=False) as c:
        yield c


def shingles(text: str) -> set[tuple[str, ...]]:
    words = text.lower().split()
    return {tuple(words[i : i + 5]) for i in range(len(words) - 4)}


def jaccard(a: str, b: str) -> float:
    x, y = shingles(a), shingles(b)
    return len(x & y) / len(x | y)


def main_text(client: httpx2.Client, url: str) -> str:
    return trafilatura.extract(client.get(url).text, url=url) or ""


def test_pages_carry_boilerplate_that_extraction_removes(client: httpx2.Client) -> None:
    raw = client.get(site.REALPYTHON.url).text
    assert "We use cookies" in raw
    assert "Subscribe to our newsletter" in raw
    text = main_text(client, site.REALPYTHON.url)
    assert "Python 3.11 added asyncio.TaskGroup" in text
    assert "cookies" not in text
    assert "newsletter" not in text


@pytest.mark.parametrize(
    ("article", "markup"),
    [
        (site.REALPYTHON, '"datePublished": "2023-06-21T10:00:00+00:00"'),
        (site.SYNDICATED, '<meta property="article:published_time" content="2023-06-28'),
        (site.OLD_BLOG, '<time datetime="2019-06-14">'),
        (site.NIST_GUIDANCE, '"datePublished": "2024-03-18"'),
    ],
)
def test_dated_pages_say_when_they_were_published(
    client: httpx2.Client, article: Article, markup: str
) -> None:
    page = client.get(article.url).text
    assert markup in page
    metadata = trafilatura.extract_metadata(page)
    assert metadata is not None
    assert article.published
    assert metadata.date == article.published[:10]


def test_syndicated_copy_is_a_near_duplicate(client: httpx2.Client) -> None:
    original = main_text(client, site.REALPYTHON.url)
    copy = main_text(client, site.SYNDICATED.url)
    assert jaccard(original, copy) >= 0.95
    assert original != copy
    assert jaccard(original, main_text(client, site.STACKOVERFLOW.url)) < 0.1


def test_pdf_is_a_real_three_page_pdf(client: httpx2.Client) -> None:
    response = client.get(site.PDF_URL)
    assert response.headers["content-type"] == "application/pdf"
    assert int(response.headers["content-length"]) == len(response.content)
    document = pypdfium2.PdfDocument(response.content)
    texts = [document[i].get_textpage().get_text_range() for i in range(len(document))]
    assert len(texts) == 3
    assert "log retention periods" in " ".join(" ".join(texts).split())


def test_pdf_with_a_wrong_content_type_is_still_a_pdf(client: httpx2.Client) -> None:
    response = client.get(site.OCTET_PDF_URL)
    assert response.headers["content-type"] == "application/octet-stream"
    text = pypdfium2.PdfDocument(response.content)[0].get_textpage().get_text_range()
    assert "365 days" in text


def test_injection_page_looks_relevant_and_carries_instructions(client: httpx2.Client) -> None:
    text = main_text(client, site.INJECTION.url)
    assert "asyncio.run" in text
    assert "Ignore all previous instructions" in text
    assert f"http://{site.EVIL_HOST}/" in text


def test_binary_and_undecodable_pages(client: httpx2.Client) -> None:
    binary = client.get(site.BINARY_URL)
    assert binary.headers["content-type"] == "application/octet-stream"
    bad = client.get(site.UNDECODABLE_URL)
    assert "charset=utf-8" in bad.headers["content-type"]
    for body in (binary.content, bad.content):
        with pytest.raises(UnicodeDecodeError):
            body.decode("utf-8")


def test_big_page_streams_more_than_eight_megabytes(client: httpx2.Client) -> None:
    with client.stream("GET", site.BIG_URL) as response:
        assert "content-length" not in response.headers  # the size is only known by reading
        size = sum(len(chunk) for chunk in response.iter_raw())
    assert size > BIG_BYTES


def test_gzip_bomb_is_small_on_the_wire_and_huge_inflated(client: httpx2.Client) -> None:
    with client.stream("GET", site.GZIP_BOMB_URL) as response:
        assert response.headers["content-encoding"] == "gzip"
        raw = b"".join(response.iter_raw())
    assert len(raw) < 1024 * 1024
    inflater, inflated, pending = zlib.decompressobj(31), 0, raw
    while pending:  # bounded steps, so the test never holds 100 MB at once
        inflated += len(inflater.decompress(pending, 4 * 1024 * 1024))
        pending = inflater.unconsumed_tail
    assert inflated > BOMB_BYTES


def test_slow_drip_sends_one_byte_at_a_time(client: httpx2.Client) -> None:
    with client.stream("GET", site.DRIP_URL) as response:
        assert response.headers["content-length"] == str(DRIP_BYTES)
        chunks = response.iter_raw()
        assert [next(chunks), next(chunks)] == [b"<", b"<"]


def test_spa_text_only_exists_after_javascript(client: httpx2.Client) -> None:
    page = client.get(site.SPA_URL).text
    assert site.SPA_TEXT not in page
    assert "research sessions" not in page
    assert "atob(" in page
