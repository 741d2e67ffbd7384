"""Local files to documents: the type is decided by content, checked against the name.

`sniff` reads the first bytes (and, for zip containers, the member names) to say what a file
really is; `kind_of_name` says what its extension claims. A file whose content contradicts its
extension (a PDF renamed .docx) is reported and skipped, since indexing it under the wrong name
would mislead whoever reads the citation; a file with no known extension (an upload) is read as
its content says. Each kind has one converter in CONVERTERS; every failure is an
`UnreadableFile` with a short reason, so a batch reports it and goes on.
"""

from __future__ import annotations

import csv
import io
import zipfile
import zlib
from collections.abc import Callable
from pathlib import PurePath

from ..errors import FetchError, UnreadableFile
from .documents import Document, Section, nonempty
from .epub import convert_epub
from .office import convert_docx, convert_pptx, convert_xlsx
from .tabular import cell_text, table_sections

Converter = Callable[[bytes, str], Document]

SUFFIXES: dict[str, str] = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".pptx": "pptx",
    ".xlsx": "xlsx",
    ".csv": "csv",
    ".tsv": "csv",
    ".html": "html",
    ".htm": "html",
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".epub": "epub",
}
# Images, audio and archives that might hold no NUL byte in their first kilobyte.
_BINARY_MAGIC = (b"\xff\xd8\xff", b"\x89PNG", b"GIF8", b"ID3", b"\x1f\x8b", b"7z\xbc\xaf", b"Rar!")
TEXT_KINDS = frozenset({"csv", "html", "markdown", "text"})  # one family: content cannot tell
PDF_MAX_PAGES = 2000
HEAD_BYTES = 1024
MIMETYPE_BYTES = 64  # "application/epub+zip" and some room
IN_PROCESS_KINDS = frozenset({"markdown", "text"})  # decoded and split, nothing parsed
TEXT_SECTION_CHARS = 12_000  # long plain text is cited by line range, not as one blob
# The most text one converted document may hold. What a worker sends back is held, split and
# stored by the caller (the server, for an upload), so it is bounded like the upload itself:
# a 19 MB CSV of one-character cells is 60 MB of table once converted.
DOCUMENT_MAX_CHARS = 24_000_000
_ZIP_MEMBERS = {
    "word/document.xml": "docx",
    "ppt/presentation.xml": "pptx",
    "xl/workbook.xml": "xlsx",
}


def kind_of_name(name: str) -> str | None:
    return SUFFIXES.get(PurePath(name).suffix.lower())


def sniff(data: bytes) -> str:
    """What the bytes are: a CONVERTERS kind, "zip", "binary" or "text"."""
    found = sniff_head(data)
    return _zip_kind(data) if found == "zip" else found


def sniff_head(data: bytes) -> str:
    """What the first kilobyte says: "pdf", "zip", "binary", "html" or "text". Bounded, so
    the server may call it on an upload; anything more is decided in the sandbox."""
    head = data[:HEAD_BYTES]
    if head.lstrip()[:5] == b"%PDF-":
        return "pdf"
    if head.startswith(b"PK\x03\x04"):
        return "zip"
    if head.startswith(_BINARY_MAGIC) or (
        b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff"))
    ):
        return "binary"
    lowered = head.lstrip().lower()
    if lowered.startswith((b"<!doctype html", b"<html")):
        return "html"
    return "text"


def _zip_kind(data: bytes) -> str:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
            if "mimetype" in names and _mimetype(archive) == b"application/epub+zip":
                return "epub"
    except (zipfile.BadZipFile, KeyError, OSError, EOFError, zlib.error):
        return "zip"
    return next((kind for member, kind in _ZIP_MEMBERS.items() if member in names), "zip")


def _mimetype(archive: zipfile.ZipFile) -> bytes:
    """The first bytes of the `mimetype` member only: a 1 MB upload whose mimetype inflated
    to gigabytes took the server to 2.2 GB when it was read whole (issue 24)."""
    with archive.open("mimetype") as member:
        return member.read(MIMETYPE_BYTES).strip()


def decide_kind(data: bytes, name: str) -> str:
    """The converter to use, or UnreadableFile saying why there is none."""
    if not data:
        raise UnreadableFile("empty file")
    found = sniff(data)
    claimed = kind_of_name(name)
    if claimed is None:
        if found in CONVERTERS:
            return found
        raise UnreadableFile(f"unsupported file type ({found} content)")
    if found == "text" and claimed in TEXT_KINDS:
        return claimed
    if found == "html" and claimed in TEXT_KINDS:
        return "html" if claimed == "text" else claimed
    if found == claimed:
        return found
    if found in ("zip", "binary", "text"):
        raise UnreadableFile(f"not a valid {claimed.upper()} file (content is {found})")
    raise UnreadableFile(f"content is {found.upper()}, not {claimed.upper()} (renamed?)")


def convert(data: bytes, name: str, *, pdf_max_pages: int = PDF_MAX_PAGES) -> Document:
    """`data`, the content of a file called `name`, as a document (UnreadableFile if not);
    at most `pdf_max_pages` of a PDF are read (`--pdf-max-pages` for included files)."""
    kind = decide_kind(data, name)
    base = PurePath(name).name
    if kind == "pdf":
        document = convert_pdf(data, base, pdf_max_pages)
    else:
        document = CONVERTERS[kind](data, base)
    if not document.sections:
        raise UnreadableFile(f"no text found in this {kind.upper()} file")
    return document


def decode(data: bytes) -> str:
    """UTF-8 (with or without a BOM), UTF-16 with a BOM, else Windows-1252, which never fails."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return data.decode("utf-16", errors="replace")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def convert_pdf(data: bytes, name: str, max_pages: int = PDF_MAX_PAGES) -> Document:
    from ..fetch.pdf import extract_pdf_pages

    try:
        pdf = extract_pdf_pages(data, max_pages=max_pages)
    except FetchError as exc:
        raise UnreadableFile(exc.reason) from exc
    sections = [
        Section(f"p. {n}", text, f"page={n}") for n, text in enumerate(pdf.pages, 1) if text
    ]
    if not sections and pdf.page_count:
        raise UnreadableFile("no text layer (a scanned PDF needs OCR)")
    title = pdf.title or _first_line(sections) or name
    return Document(title, "pdf", tuple(sections), pdf.published)


def convert_html(data: bytes, name: str) -> Document:
    from ..fetch.extract import extract_html

    page = extract_html(decode(data), f"file:///{name}")
    return Document(page.title or name, "html", nonempty([Section("", page.text)]), page.published)


def convert_text(data: bytes, name: str) -> Document:
    text = decode(data)
    return Document(_markdown_title(text) or name, "text", line_sections(text))


def convert_markdown(data: bytes, name: str) -> Document:
    text = decode(data)
    return Document(_markdown_title(text) or name, "markdown", line_sections(text))


def line_sections(text: str, limit: int = TEXT_SECTION_CHARS) -> tuple[Section, ...]:
    """One section for a short text; for a long one, pieces cut at blank lines, each named by
    its line range so a citation still points somewhere a reader can find."""
    if len(text) <= limit:
        return nonempty([Section("", text)])
    pieces: list[Section] = []
    lines = text.splitlines(keepends=True)
    start, size, chunk = 1, 0, []
    for number, line in enumerate(lines, 1):
        chunk.append(line)
        size += len(line)
        if (size >= limit and not line.strip()) or size >= 2 * limit:
            pieces.append(_lines_section(chunk, start, number))
            start, size, chunk = number + 1, 0, []
    if chunk:
        pieces.append(_lines_section(chunk, start, len(lines)))
    return nonempty(pieces)


def _lines_section(chunk: list[str], first: int, last: int) -> Section:
    return Section(f"lines {first}–{last}", "".join(chunk).strip(), f"lines={first}-{last}")


def convert_csv(data: bytes, name: str) -> Document:
    text = decode(data)
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(text[:4096], ",;\t|")
    except csv.Error:
        dialect = csv.excel_tab if name.lower().endswith(".tsv") else csv.excel
    reader = csv.reader(io.StringIO(text), dialect)
    try:
        rows = [(i, [cell_text(c) for c in row]) for i, row in enumerate(reader, 1)]
    except csv.Error as exc:
        raise UnreadableFile(f"unreadable CSV: {exc}") from exc
    return Document(name, "csv", tuple(table_sections(rows, "")))


def _markdown_title(text: str) -> str:
    for line in text.splitlines()[:20]:
        if line.startswith("# "):
            return line[2:].strip()
    return ""


def _first_line(sections: list[Section]) -> str:
    for s in sections:
        for line in s.text.splitlines():
            if line.strip():
                return line.strip()[:200]
    return ""


CONVERTERS: dict[str, Converter] = {
    "pdf": convert_pdf,
    "docx": convert_docx,
    "pptx": convert_pptx,
    "xlsx": convert_xlsx,
    "csv": convert_csv,
    "html": convert_html,
    "markdown": convert_markdown,
    "text": convert_text,
    "epub": convert_epub,
}


def sandboxed_convert(
    data: bytes,
    name: str,
    *,
    pdf_max_pages: int = PDF_MAX_PAGES,
    max_chars: int = DOCUMENT_MAX_CHARS,
) -> Document:
    """`convert`, run in the extraction sandbox for everything but plain text: a local file
    or an upload can be as hostile as a page (a PDF that inflates to gigabytes, a zip bomb of
    a DOCX or an EPUB's mimetype, a CSV that took 1.4 GB and 90 s to read). In this process
    only the first kilobyte is looked at; even telling a DOCX from an EPUB opens the archive,
    so that happens in the worker, under its memory and time limits, and a document whose text
    passes `max_chars` never leaves it."""
    from ..errors import ExtractionError
    from ..fetch.sandbox import shared_sandbox

    if not data:
        raise UnreadableFile("empty file")
    if sniff_head(data) == "text" and kind_of_name(name) in (None, *IN_PROCESS_KINDS):
        return convert(data, name)
    try:
        return shared_sandbox().run_sync(_convert_capped, data, name, pdf_max_pages, max_chars)
    except ExtractionError as exc:
        raise UnreadableFile(exc.reason) from exc


def _convert_capped(data: bytes, name: str, pdf_max_pages: int, max_chars: int) -> Document:
    """`convert` with positional arguments only, and its text bounded: what the sandbox sends
    to its worker."""
    document = convert(data, name, pdf_max_pages=pdf_max_pages)
    size = sum(len(section.text) for section in document.sections)
    if size > max_chars:
        raise UnreadableFile(
            f"its text is {size:,} characters once converted, more than the {max_chars:,} "
            "one document may hold; split the file"
        )
    return document
