"""Bounded decompression and charset decoding, at the unit level."""

from __future__ import annotations

import gzip
import zlib

import pytest

from sleuth.errors import FetchError
from sleuth.fetch.body import Body, Inflater, decode_text, kind_from_headers


def body(data: bytes, charset: str | None = None) -> Body:
    return Body("http://x.example/", "http://x.example/", "text/html", charset, data, False)


def test_inflater_never_returns_more_than_asked() -> None:
    bomb = gzip.compress(b"\0" * 10_000_000)
    assert len(Inflater("gzip").feed(bomb, 1000)) == 1000


@pytest.mark.parametrize("wbits", [zlib.MAX_WBITS, -zlib.MAX_WBITS])
def test_deflate_with_and_without_zlib_wrapper(wbits: int) -> None:
    squeeze = zlib.compressobj(6, zlib.DEFLATED, wbits)
    data = squeeze.compress(b"hello deflate") + squeeze.flush()
    assert Inflater("deflate").feed(data, 100) == b"hello deflate"


def test_unknown_encoding_is_refused() -> None:
    with pytest.raises(FetchError, match="unsupported content encoding: br"):
        Inflater("br")


def test_corrupt_gzip_is_a_fetch_error() -> None:
    with pytest.raises(FetchError, match="corrupt gzip"):
        Inflater("gzip").feed(b"\x1f\x8b\x08\x00garbage-garbage", 100)


def test_bom_wins_over_declared_charset() -> None:
    data = "\ufeffHéllo".encode("utf-16-le")
    assert decode_text(body(b"\xff\xfe" + data[2:], "iso-8859-1")) == "Héllo"


def test_undeclared_defaults_to_utf8() -> None:
    assert decode_text(body("naïve café".encode())) == "naïve café"


@pytest.mark.parametrize(
    ("mime", "path", "kind"),
    [
        ("text/html", "/", "html"),
        ("application/xhtml+xml", "/", "html"),
        ("text/plain", "/a.pdf", "text"),
        ("application/pdf", "/download", "pdf"),
        ("application/octet-stream", "/paper.PDF", "pdf"),
        ("", "/", "sniff"),
    ],
)
def test_kind_from_headers(mime: str, path: str, kind: str) -> None:
    assert kind_from_headers(mime, path) == kind


def test_kind_refuses_images_and_zip() -> None:
    for mime in ("image/png", "application/zip", "video/mp4"):
        with pytest.raises(FetchError, match=f"unsupported content type: {mime}"):
            kind_from_headers(mime, "/x")


PAGE = "<html><head><title>Café</title></head><body><p>Audit logs are kept 90 days.</p></body>"


@pytest.mark.parametrize(
    ("encoding", "declared"),
    [
        ("utf-8", "utf-16"),  # UTF-8 labelled utf-16 used to become a wall of CJK characters
        ("utf-8", "utf-32"),
        ("utf-16-le", "utf-8"),  # UTF-16 without a BOM, labelled as something else
        ("utf-16-be", "iso-8859-1"),
        ("utf-16-le", None),
        ("utf-16", "utf-8"),  # with a BOM
    ],
)
def test_a_charset_label_the_bytes_contradict_is_overruled(
    encoding: str, declared: str | None
) -> None:
    assert decode_text(body(PAGE.encode(encoding), declared)) == PAGE


def test_a_true_label_is_kept() -> None:
    assert decode_text(body(PAGE.encode("latin-1"), "latin-1")) == PAGE
    assert decode_text(body(PAGE.encode("utf-16"), "utf-16")) == PAGE
