"""Hostile uploads for the knowledge base: small on the wire, huge once inflated or parsed.

Zip members are written by hand from one deflate block ending in a full flush, repeated (as
`tests/testweb/bombs.py` builds its PDF): a member that inflates to a gigabyte costs one
compression of a megabyte, a CRC pass and about a megabyte on disk.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from dataclasses import dataclass
from functools import cache

from tests.testweb.bombs import pdf_bomb

MB = 1024 * 1024
GB = 1024 * MB


@dataclass(frozen=True, slots=True)
class Bomb:
    """A zip member that inflates to `size` bytes of `unit` repeated."""

    size: int
    unit: bytes = b"\0"


@dataclass(frozen=True, slots=True)
class Upload:
    name: str  # the case, as the tests and the report name it
    filename: str
    data: bytes


def _flushed(data: bytes, final: bool = False) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush(zlib.Z_FINISH if final else zlib.Z_FULL_FLUSH)


@cache
def _deflated(bomb: Bomb) -> tuple[bytes, int]:
    """The raw deflate stream of the member and the CRC-32 of what it inflates to."""
    block = (bomb.unit * (MB // len(bomb.unit) + 1))[:MB]
    count = bomb.size // MB
    crc = 0
    for _ in range(count):
        crc = zlib.crc32(block, crc)
    return _flushed(block) * count + _flushed(b"", final=True), crc


def zipped(members: dict[str, bytes | Bomb]) -> bytes:
    """A zip archive of `members`; a `Bomb` is deflated, plain bytes are stored."""
    out, central = bytearray(), bytearray()
    for name, content in members.items():
        raw = name.encode()
        if isinstance(content, Bomb):
            (data, crc), method, size = _deflated(content), 8, content.size // MB * MB
        else:
            data, crc, method, size = content, zlib.crc32(content), 0, len(content)
        offset = len(out)
        out += struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, method, 0, 0x21, crc,
                           len(data), size, len(raw), 0) + raw + data  # fmt: skip
        central += struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, method, 0,
                               0x21, crc, len(data), size, len(raw), 0, 0, 0, 0, 0,
                               offset) + raw  # fmt: skip
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(members), len(members),
                      len(central), len(out), 0)  # fmt: skip
    return bytes(out + central + end)


def nested(levels: int = 3, fan: int = 4) -> bytes:
    """An archive of archives of archives…, a bomb at the bottom of each (42.zip's shape)."""
    inner = zipped({"word/document.xml": Bomb(16 * MB, b"<w:p/>")})
    for _ in range(levels):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
            for n in range(fan):
                archive.writestr(f"part{n}.zip", inner)
        inner = buffer.getvalue()
    return inner


def csv_bomb(size: int) -> bytes:
    """`size` bytes of a CSV of tiny cells: every one a Python object once read."""
    row = ",".join(["1"] * 50) + "\n"
    return (row * (size // len(row) + 1))[:size].encode()


def fast_cases() -> list[Upload]:
    """Cases that take seconds (`make test`)."""
    return [
        Upload("zip whose mimetype inflates to 1 GB", "book.epub",
               zipped({"mimetype": Bomb(GB), "META-INF/container.xml": b"<container/>"})),
        Upload("DOCX whose document.xml inflates to 1 GB", "plans.docx",
               zipped({"[Content_Types].xml": b"<Types/>",
                       "word/document.xml": Bomb(GB, b"<w:p><w:r><w:t>a</w:t></w:r></w:p>")})),
        Upload("nested archives", "nested.zip", nested()),
    ]  # fmt: skip


def heavy_cases() -> list[Upload]:
    """Cases that use up a worker's time or memory limit (`make soak`)."""
    sheet = b"<row><c><v>1</v></c></row>"
    return [
        Upload("XLSX whose sheet inflates to 1 GB", "figures.xlsx",
               zipped({"xl/workbook.xml": b"<workbook/>",
                       "xl/worksheets/sheet1.xml": Bomb(GB, sheet)})),
        Upload("PPTX whose slide inflates to 1 GB", "deck.pptx",
               zipped({"ppt/presentation.xml": b"<presentation/>",
                       "ppt/slides/slide1.xml": Bomb(GB, b"<a:t>a</a:t>")})),
        Upload("EPUB whose chapter inflates to 1 GB", "novel.epub",
               zipped({"mimetype": b"application/epub+zip",
                       "META-INF/container.xml": b"<container/>",
                       "OEBPS/chapter1.xhtml": Bomb(GB, b"<p>a</p>")})),
        Upload("PDF whose content stream inflates to 500 MB", "report.pdf", pdf_bomb(500 * MB)),
        Upload("CSV of 19 MB of tiny cells", "cells.csv", csv_bomb(19 * MB)),
        Upload("TSV of 19 MB of tiny cells", "cells.tsv", csv_bomb(19 * MB).replace(b",", b"\t")),
    ]  # fmt: skip
