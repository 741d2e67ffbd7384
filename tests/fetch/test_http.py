"""HttpFetcher against hostile and ordinary bodies on the recording web (through HTTP_PROXY)."""

from __future__ import annotations

import gzip
import random
import threading
import time
import zlib
from collections.abc import Iterator
from functools import cache

import pytest

from sleuth.errors import FetchError
from tests.fetch.conftest import MakeFetcher, make_pdf
from tests.fetch.web import RecordingWeb, Reply

PARAGRAPH = "Rust's async runtimes schedule futures cooperatively on a small pool of threads. "
ARTICLE_HTML = f"""<html><head><title>Async runtimes compared</title>
<script type="application/ld+json">{{"@type": "Article", "datePublished": "2023-05-06"}}</script>
</head><body><nav>Home | About | Contact</nav>
<article><h1>Async runtimes compared</h1><p>{PARAGRAPH * 5}</p><p>{PARAGRAPH * 3}</p></article>
<footer>Copyright 2023</footer></body></html>""".encode()


@cache
def gzip_bomb() -> bytes:
    """About 30 KB on the wire, 20 MB once inflated: HTML words repeated."""
    squeeze = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = b"<p>" + b"bomb " * 200_000 + b"</p>"  # 1 MB
    parts = [squeeze.compress(b"<html><body>")]
    parts += [squeeze.compress(block) for _ in range(20)]
    return b"".join([*parts, squeeze.flush()])


def endless(stop: threading.Event) -> Iterator[bytes]:
    yield b"<html><body>"
    while not stop.is_set():
        yield b"<p>" + PARAGRAPH.encode() * 100 + b"</p>\n"


def slow_drip(stop: threading.Event) -> Iterator[bytes]:
    yield b"<html><body><p>" + PARAGRAPH.encode()
    while not stop.wait(0.1):
        yield b"x"  # always inside the per-read timeout, never done


async def test_article_is_read_with_title_text_and_date(
    proxied: RecordingWeb, make_fetcher: MakeFetcher
) -> None:
    url = proxied.add("http://blog.example.com/async", Reply(ARTICLE_HTML))
    page = await make_fetcher().fetch(url)
    assert page.title == "Async runtimes compared"
    assert "schedule futures cooperatively" in page.text
    assert "Home | About" not in page.text
    assert page.published == "2023-05-06"
    assert page.content_type == "text/html"
    assert page.final_url is None
    assert not page.from_cache


async def test_gzip_bomb_is_cut_at_the_cap(
    proxied: RecordingWeb, make_fetcher: MakeFetcher
) -> None:
    url = proxied.add(
        "http://bomb.example.com/x",
        Reply(gzip_bomb(), headers=(("Content-Encoding", "gzip"),)),
    )
    page = await make_fetcher(max_bytes=100_000).fetch(url)
    assert "bomb bomb" in page.text
    assert len(page.text) <= 100_000


async def test_gzip_body_is_decoded(proxied: RecordingWeb, make_fetcher: MakeFetcher) -> None:
    body = gzip.compress(ARTICLE_HTML)
    url = proxied.add(
        "http://gz.example.com/", Reply(body, headers=(("Content-Encoding", "gzip"),))
    )
    assert "cooperatively" in (await make_fetcher().fetch(url)).text


async def test_endless_body_is_cut_at_the_cap_and_kept(
    proxied: RecordingWeb, make_fetcher: MakeFetcher
) -> None:
    url = proxied.add("http://endless.example.com/", Reply(stream=endless))
    page = await make_fetcher(max_bytes=300_000, total_timeout_s=30).fetch(url)
    assert "cooperatively" in page.text
    assert len(page.text) <= 300_000


async def test_slow_drip_is_cut_by_the_total_timeout(
    proxied: RecordingWeb, make_fetcher: MakeFetcher
) -> None:
    url = proxied.add("http://drip.example.com/", Reply(stream=slow_drip))
    started = time.monotonic()
    with pytest.raises(FetchError, match="timeout"):
        await make_fetcher(timeout_s=5, total_timeout_s=0.5).fetch(url)
    assert time.monotonic() - started < 5  # the per-read timeout alone would never fire


async def test_utf16_labelled_utf8_is_decoded_as_utf16(
    proxied: RecordingWeb, make_fetcher: MakeFetcher
) -> None:
    """It used to be refused as undecodable (issue 12, item 9: decode mislabelled pages)."""
    text = "Ünïcødé text about audit log retention, which is ninety days by default here."
    body = f"<html><body><p>{text}</p></body></html>".encode("utf-16-le")
    url = proxied.add("http://bad.example.com/", Reply(body, "text/html; charset=utf-8"))
    assert text in (await make_fetcher().fetch(url)).text


async def test_binary_body_labelled_html_is_undecodable(
    proxied: RecordingWeb, make_fetcher: MakeFetcher
) -> None:
    noise = random.Random(7).randbytes(50_000)
    url = proxied.add("http://bin.example.com/", Reply(noise, "text/html"))
    with pytest.raises(FetchError, match="undecodable"):
        await make_fetcher().fetch(url)


async def test_meta_charset_and_unknown_declared_charset(
    proxied: RecordingWeb, make_fetcher: MakeFetcher
) -> None:
    html = f'<html><head><meta charset="windows-1252"></head><body><p>Café crème. {PARAGRAPH}</p>'
    url = proxied.add(
        "http://cp.example.com/", Reply(html.encode("cp1252"), "text/html; charset=x-nope")
    )
    assert "Café crème" in (await make_fetcher().fetch(url)).text


@pytest.mark.parametrize("status", [404, 500, 503])
async def test_error_status_fails(
    status: int, proxied: RecordingWeb, make_fetcher: MakeFetcher
) -> None:
    url = proxied.add("http://err.example.com/", Reply(ARTICLE_HTML, status=status))
    with pytest.raises(FetchError, match=f"^http {status}$"):
        await make_fetcher().fetch(url)


async def test_unsupported_type_fails_with_its_name(
    proxied: RecordingWeb, make_fetcher: MakeFetcher
) -> None:
    url = proxied.add("http://img.example.com/a", Reply(b"\x89PNG....", "image/png"))
    with pytest.raises(FetchError, match="unsupported content type: image/png"):
        await make_fetcher().fetch(url)


async def test_plain_text_is_used_as_is(proxied: RecordingWeb, make_fetcher: MakeFetcher) -> None:
    text = "RFC 9110 notes\n\n" + PARAGRAPH * 3
    url = proxied.add("http://txt.example.com/n.txt", Reply(text.encode(), "text/plain"))
    page = await make_fetcher().fetch(url)
    assert page.text == text.strip()
    assert page.title == "RFC 9110 notes"
    assert page.content_type == "text/plain"


async def test_page_without_text_fails(proxied: RecordingWeb, make_fetcher: MakeFetcher) -> None:
    url = proxied.add("http://spa.example.com/", Reply(b"<html><body><div id=app></div></body>"))
    with pytest.raises(FetchError, match="no text"):
        await make_fetcher().fetch(url)


async def test_pdf_by_content_type(proxied: RecordingWeb, make_fetcher: MakeFetcher) -> None:
    pdf = make_pdf([f"Log retention policy. {PARAGRAPH}"], title="Log Guide")
    url = proxied.add("http://docs.example.gov/download?id=7", Reply(pdf, "application/pdf"))
    page = await make_fetcher().fetch(url)
    assert page.title == "Log Guide"
    assert "Log retention policy" in page.text
    assert page.content_type == "application/pdf"


async def test_pdf_by_extension(proxied: RecordingWeb, make_fetcher: MakeFetcher) -> None:
    pdf = make_pdf([f"Audit logging whitepaper. {PARAGRAPH}"])
    url = proxied.add("http://files.example.com/paper.pdf", Reply(pdf, "application/octet-stream"))
    page = await make_fetcher().fetch(url)
    assert "Audit logging whitepaper" in page.text


async def test_pdf_page_cap(proxied: RecordingWeb, make_fetcher: MakeFetcher) -> None:
    pdf = make_pdf([f"Chapter {n} says something. {PARAGRAPH}" for n in range(1, 6)])
    url = proxied.add("http://files.example.com/book.pdf", Reply(pdf, "application/pdf"))
    page = await make_fetcher(pdf_max_pages=2).fetch(url)
    assert "Chapter 2" in page.text
    assert "Chapter 3" not in page.text


async def test_oversize_pdf_fails(proxied: RecordingWeb, make_fetcher: MakeFetcher) -> None:
    pdf = make_pdf([PARAGRAPH * 10] * 3)
    url = proxied.add("http://files.example.com/big.pdf", Reply(pdf, "application/pdf"))
    with pytest.raises(FetchError, match="too large"):
        await make_fetcher(max_bytes=len(pdf) // 2).fetch(url)


async def test_oversize_streamed_pdf_fails(
    proxied: RecordingWeb, make_fetcher: MakeFetcher
) -> None:
    pdf = make_pdf([PARAGRAPH * 10] * 3)

    def chunks(stop: threading.Event) -> Iterator[bytes]:
        yield pdf  # no Content-Length: only the streamed cap can notice

    url = proxied.add(
        "http://files.example.com/s.pdf", Reply(content_type="application/pdf", stream=chunks)
    )
    with pytest.raises(FetchError, match="too large"):
        await make_fetcher(max_bytes=len(pdf) // 2).fetch(url)
