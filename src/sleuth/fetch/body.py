"""Response bodies: bounded decompression, charset decoding and content-kind routing.

Decompression is done here rather than by the HTTP client so that a gzip bomb can never expand
past the size cap: zlib is asked for at most the bytes still wanted, never "everything".
"""

from __future__ import annotations

import codecs
import re
import zlib
from dataclasses import dataclass
from typing import Literal

from ..errors import FetchError

Kind = Literal["html", "text", "pdf", "sniff"]

PDF_TYPES = frozenset({"application/pdf", "application/x-pdf", "application/acrobat"})
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
# Servers label downloads this way; the path or the first bytes decide what they really are.
OPAQUE_TYPES = frozenset(
    {
        "",
        "application/octet-stream",
        "binary/octet-stream",
        "application/download",
        "application/force-download",
    }
)
_META_CHARSET = re.compile(rb"""<meta[^>]{0,200}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
# Above this share of replacement or control characters a "text" body is really binary.
MAX_BAD_CHAR_RATIO = 0.1
_CONTROL = frozenset(chr(c) for c in range(32) if chr(c) not in "\t\n\r\f") | {"\ufffd", "\x7f"}


@dataclass(frozen=True, slots=True)
class Body:
    """What came over the wire, already decompressed and cut at the size cap."""

    url: str  # as requested
    final_url: str  # after redirects
    mime: str  # lowercased media type without parameters
    charset: str | None
    data: bytes
    truncated: bool


def kind_from_headers(mime: str, path: str) -> Kind:
    """Route by declared type (and `.pdf` path); refuse what Sleuth cannot read before download."""
    if mime in PDF_TYPES:
        return "pdf"
    if mime in HTML_TYPES:
        return "html"
    if mime.startswith("text/"):
        return "text"
    if mime in OPAQUE_TYPES:
        return "pdf" if path.lower().endswith(".pdf") else "sniff"
    raise FetchError(f"unsupported content type: {mime}", cause="unsupported")


def settle_kind(kind: Kind, body: Body) -> Kind:
    """Decide an undeclared body by its first bytes: a PDF, else treat it as HTML."""
    if body.data.lstrip()[:5] == b"%PDF-":
        return "pdf"
    if kind != "sniff":
        return kind
    return "html"


class Inflater:
    """Undo one Content-Encoding, never producing more than asked for."""

    def __init__(self, encoding: str) -> None:
        self._encoding = encoding.strip().lower()
        if self._encoding not in {"", "identity", "gzip", "x-gzip", "deflate"}:
            raise FetchError(f"unsupported content encoding: {self._encoding}", cause="unsupported")
        self._zlib: zlib._Decompress | None = None

    def feed(self, chunk: bytes, limit: int) -> bytes:
        """Decoded bytes of `chunk`, at most `limit` (>= 1) of them."""
        if self._encoding in {"", "identity"}:
            return chunk[:limit]
        if self._zlib is None:
            self._zlib = zlib.decompressobj(self._wbits(chunk))
        try:
            return self._zlib.decompress(chunk, max(1, limit))
        except zlib.error as exc:
            raise FetchError(f"corrupt {self._encoding} body", cause="unsupported") from exc

    def _wbits(self, first: bytes) -> int:
        if self._encoding in {"gzip", "x-gzip"}:
            return zlib.MAX_WBITS | 16
        # "deflate" is meant to be zlib-wrapped, but some servers send raw deflate.
        is_zlib = len(first) >= 2 and first[0] & 0x0F == 8 and (first[0] << 8 | first[1]) % 31 == 0
        return zlib.MAX_WBITS if is_zlib else -zlib.MAX_WBITS


def decode_text(body: Body) -> str:
    """Text in the declared, BOM or <meta> charset (else UTF-8); binary bodies are refused."""
    text = body.data.decode(_charset(body), errors="replace")
    if text and _bad_ratio(text) > MAX_BAD_CHAR_RATIO:
        raise FetchError("undecodable", body.url, cause="unsupported")
    return text


def _charset(body: Body) -> str:
    for bom, name in _BOMS:
        if body.data.startswith(bom):
            return name
    candidates = [body.charset or ""]
    match = _META_CHARSET.search(body.data[:4096])
    if match:
        candidates.append(match.group(1).decode("ascii"))
    declared = next((name for name in candidates if _known_codec(name)), "utf-8")
    return _checked(declared, body.data[:4096])


def _checked(declared: str, head: bytes) -> str:
    """The declared charset unless the bytes plainly contradict it. Pages lie both ways: UTF-8
    labelled utf-16 decodes into a wall of CJK characters that no check calls binary, and
    UTF-16 without a BOM labelled utf-8 or latin-1 decodes into text full of NULs."""
    wide = _utf16_order(head)
    if wide is not None:
        return wide
    if codecs.lookup(declared).name.startswith(("utf-16", "utf-32")):
        return "utf-8"  # no BOM and no NUL pattern: not really UTF-16/32
    return declared


def _utf16_order(head: bytes) -> str | None:
    """UTF-16 without a BOM, recognised by mostly-ASCII text: NULs in every other byte."""
    even, odd = head[0::2], head[1::2]
    if len(head) < 16:
        return None
    even_nul, odd_nul = even.count(0) / len(even), odd.count(0) / len(odd)
    if odd_nul > 0.4 and even_nul < 0.05:
        return "utf-16-le"
    if even_nul > 0.4 and odd_nul < 0.05:
        return "utf-16-be"
    return None


def _known_codec(name: str) -> bool:
    if not name:
        return False
    try:
        codecs.lookup(name)
    except LookupError:
        return False
    return True


def _bad_ratio(text: str) -> float:
    sample = text[:200_000]
    bad = sum(1 for ch in sample if ch in _CONTROL)
    return bad / len(sample)
