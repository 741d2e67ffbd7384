"""Images of read pages (issue 29, item 5): which `<img>` elements extraction keeps, and the
bounded download through the page fetcher's network guard — an image named on a private
address is never requested, and an oversized, mislabelled or non-image response is dropped."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from sleuth.errors import BlockedURLError, FetchError
from sleuth.fetch.body import Body
from sleuth.fetch.cache import SqlitePageCache
from sleuth.fetch.extract import extract_html
from sleuth.fetch.media import image_type
from sleuth.fetch.parse import to_page
from tests.fetch.conftest import MakeFetcher
from tests.testweb.images import GIF, SVG, png
from tests.testweb.server import TestWeb

PAGE = "http://figures.example.org/guide/retention"
PAGE_HTML = """<!doctype html><html><head><title>Retention</title></head><body>
<header><img src="/logo.png" alt="Example Cloud company logo"></header>
<nav><img src="/home.png" alt="Back to the home page"></nav>
<article><header><h1>Audit log retention</h1>
<img srcset="/img/lead-480.png 480w, /img/lead-960.png 960w" alt="The audit log console page">
</header>
<p>Example Cloud keeps audit logs for 90 days by default before deleting them.</p>
<figure><img src="../img/chart.png" alt="Bar chart">
<figcaption>Audit logs are kept for 90 days by default.</figcaption></figure>
<img src="data:image/gif;base64,R0lGOD" data-src="/img/lazy.png" alt="Lazy loaded retention chart">
<img src="/img/tracker.gif" width="1" height="1" alt="Tracking pixel for analytics">
<img src="/img/empty.png" alt="">
<img src="/img/logo.svg" alt="logo">
<img src="IMG_2231.jpg" alt="IMG_2231.jpg">
<img src="javascript:alert(1)" alt="Not an image at all here">
<img src="/img/chart.png" alt="The same chart again twice">
</article>
<aside><img src="/ad.png" alt="Buy cheap cloud storage now"></aside>
</body></html>"""


def test_extraction_keeps_images_with_words_of_their_own() -> None:
    """Page chrome (the site's header, nav, aside), icon-sized images, images without words or
    with only a file name or "logo", and non-http sources are left out; an article's own header
    image, `srcset` and a lazy loader's `data-src` are read; an image shown twice is kept once,
    with its first words."""
    images = extract_html(PAGE_HTML, PAGE).images
    assert [(i.url, i.alt, i.caption) for i in images] == [
        ("http://figures.example.org/img/lead-480.png", "The audit log console page", ""),
        (
            "http://figures.example.org/img/chart.png",
            "Bar chart",
            "Audit logs are kept for 90 days by default.",
        ),
        ("http://figures.example.org/img/lazy.png", "Lazy loaded retention chart", ""),
    ]


@pytest.mark.parametrize(
    ("declared", "head", "expected"),
    [
        ("image/png", png()[:16], "image/png"),
        ("image/gif", GIF[:16], "image/gif"),
        ("image/jpeg", b"\xff\xd8\xff\xe0\x00\x10JFIF", "image/jpeg"),
        ("image/webp", b"RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp"),
        ("image/webp", b"RIFF\x00\x00\x00\x00WAVEfmt ", None),  # a RIFF that is not WebP
        ("image/png", b"<html><body>hi", None),  # a page served as a PNG
        ("image/svg+xml", SVG[:16], None),  # documents with scripts are never shown
        ("text/html", png()[:16], None),
    ],
)
def test_image_type_needs_a_shown_type_whose_bytes_agree(
    declared: str, head: bytes, expected: str | None
) -> None:
    assert image_type(declared, head) == expected


async def test_an_image_downloads_through_the_proxy_with_its_type(
    testweb_env: TestWeb, make_fetcher: MakeFetcher
) -> None:
    url = "http://figures.example.org/img/chart.png"
    testweb_env.add_page(url, png(), content_type="image/png")
    image = await make_fetcher().fetch_image(url)
    assert (image.type, image.data) == ("image/png", png())
    assert testweb_env.hits == [url]
    accept = dict(testweb_env.requests[0].headers)["Accept"]
    assert "image/png" in accept and "svg" not in accept


@pytest.mark.parametrize(
    "url",
    [
        "http://10.0.0.7/internal/chart.png",
        "http://127.0.0.1:9/chart.png",
        "http://[::1]/chart.png",
        "http://0x7f000001/chart.png",
        "http://169.254.169.254/latest/meta-data/chart.png",
        "http://localhost/chart.png",
        "file:///etc/passwd",
    ],
)
async def test_an_image_on_a_private_address_is_never_requested(
    url: str, testweb_env: TestWeb, make_fetcher: MakeFetcher
) -> None:
    with pytest.raises(BlockedURLError):
        await make_fetcher().fetch_image(url)
    assert testweb_env.hits == []


async def test_a_redirect_to_a_private_address_is_refused_before_it_is_followed(
    testweb_env: TestWeb, make_fetcher: MakeFetcher
) -> None:
    url = "http://figures.example.org/img/moved.png"
    testweb_env.add_redirect(url, f"{testweb_env.base}/secret")
    with pytest.raises(BlockedURLError):
        await make_fetcher().fetch_image(url)
    assert testweb_env.hits == [url]  # never /secret


@pytest.mark.parametrize(
    ("body", "content_type", "headers", "cause"),
    [
        (png() + b"\x00" * 400_000, "image/png", {}, "too-large"),  # by its Content-Length
        (gzip.compress(png() + b"\x00" * 400_000), "image/png", {"Content-Encoding": "gzip"},
         "too-large"),  # small on the wire, over the cap decoded: cut while streaming
        (b"<html><body>not a picture</body></html>", "text/html", {}, "unsupported"),
        (SVG, "image/svg+xml", {}, "unsupported"),
        (b"<html><body>a page that says it is a PNG</body></html>", "image/png", {},
         "unsupported"),
        (png(), "", {}, "unsupported"),  # no type at all
    ],
    ids=["oversized", "oversized-gzip", "html", "svg", "mislabelled", "untyped"],
)  # fmt: skip
async def test_oversized_and_non_image_responses_are_dropped(
    body: bytes,
    content_type: str,
    headers: dict[str, str],
    cause: str,
    testweb_env: TestWeb,
    make_fetcher: MakeFetcher,
) -> None:
    url = "http://figures.example.org/img/suspect.png"
    testweb_env.add_page(url, body, content_type=content_type, headers=headers)
    with pytest.raises(FetchError) as caught:
        await make_fetcher().fetch_image(url)
    assert caught.value.cause == cause
    assert caught.value.url == url


def test_a_cached_page_keeps_its_images(tmp_path: Path) -> None:
    """A page read from the page cache still offers its images to the report."""
    page = to_page(Body(PAGE, PAGE, "text/html", "utf-8", PAGE_HTML.encode(), False), 5)
    cache = SqlitePageCache(tmp_path / "pages.db", ttl_s=60)
    cache.put(page)
    again = cache.get(PAGE)
    assert again is not None and again.images == page.images and len(page.images) == 3
