"""Pages built to exhaust a reader's memory or time (issue 12, item 3).

Each is small on the wire and huge once parsed: a PDF whose one content stream inflates to
hundreds of megabytes of text operators, an HTML page of half a million tiny paragraphs, and pages
that stream far more than any body cap. None is in the search index; a test points scripted
search results at them.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Iterator
from functools import cache

from tests.testweb.pages import Page

PDF_BOMB_URL = "http://pdfbomb.example.org/report.pdf"
TINY_PARAGRAPHS_URL = "http://tiny.example.org/paragraphs"
HUGE_URLS = tuple(f"http://huge{n}.example.org/page" for n in range(4))

PDF_BOMB_INFLATED = 500 * 1024 * 1024
TINY_PARAGRAPHS = 550_000
HUGE_BYTES = 200 * 1024 * 1024

# One text-showing operator per cell of an 8 x 60 grid, so every glyph lands on the page and a
# text extractor has to keep all of them.
_GRID = b"".join(
    b"1 0 0 1 %d %d Tm (aaaaaaaa) Tj\n" % (40 + 70 * c, 40 + 12 * r)
    for r in range(60)
    for c in range(8)
)
_lock = threading.Lock()


def bomb_pages() -> list[Page]:
    pages = [
        Page(PDF_BOMB_URL, content_type="application/pdf", lazy_body=pdf_bomb_bytes),
        Page(TINY_PARAGRAPHS_URL, lazy_body=tiny_paragraphs_html),
    ]
    pages += [Page(url, stream=_huge_html, stream_length=HUGE_BYTES) for url in HUGE_URLS]
    return pages


def pdf_bomb_bytes() -> bytes:
    with _lock:
        return pdf_bomb(PDF_BOMB_INFLATED)


@cache
def pdf_bomb(inflated: int) -> bytes:
    """A valid one-page PDF whose FlateDecode content stream inflates to `inflated` bytes.

    The deflate stream is one compressed block repeated: each ends with a full flush, so it needs
    no earlier history and copies of it concatenate into a valid stream. Building 500 MB of
    inflated content this way costs one compression of 1 MB and an Adler-32 pass.
    """
    head, block = b"BT /F1 12 Tf\n", _GRID * (1_048_576 // len(_GRID))
    count = max(1, inflated // len(block))
    stream = b"\x78\xda" + _raw_flushed(head) + _raw_flushed(block) * count
    stream += _raw_flushed(b"ET\n", final=True)
    checksum = zlib.adler32(head)
    for _ in range(count):
        checksum = zlib.adler32(block, checksum)
    stream += zlib.adler32(b"ET\n", checksum).to_bytes(4, "big")
    return _pdf_with_stream(stream)


def _raw_flushed(data: bytes, final: bool = False) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush(zlib.Z_FINISH if final else zlib.Z_FULL_FLUSH)


def _pdf_with_stream(stream: bytes) -> bytes:
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792]"
        b" /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def tiny_paragraphs_html() -> bytes:
    return _tiny_paragraphs(TINY_PARAGRAPHS)


@cache
def _tiny_paragraphs(count: int) -> bytes:
    head = b"<!doctype html><html><head><title>Many paragraphs</title></head><body>\n"
    return head + b"<p>a</p>" * count + b"\n</body></html>\n"


def _huge_html(release: threading.Event) -> Iterator[bytes]:
    para = b"<p>" + b"Huge page filler about nothing in particular, repeated. " * 16 + b"</p>\n"
    chunk = para * 256
    head = b"<!doctype html><html><head><title>Huge page</title></head><body>\n"
    yield head
    sent = len(head)
    while sent < HUGE_BYTES and not release.is_set():
        piece = chunk[: HUGE_BYTES - sent]
        sent += len(piece)
        yield piece
