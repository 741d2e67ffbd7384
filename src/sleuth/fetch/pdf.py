"""PDF bytes to text with pypdfium2 (fast, permissively licensed), up to a page cap."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import FetchError
from .extract import Extracted

if TYPE_CHECKING:  # imported on the first PDF: most runs read none (~35 ms of start-up)
    import pypdfium2

# PDF dates look like "D:20200131093000+01'00'"; the date part is all we keep.
_PDF_DATE = re.compile(r"^(?:D:)?(\d{4})(\d{2})(\d{2})")
# PDFium is not thread-safe, and pages are extracted in worker threads: two PDFs read at once
# crashed the process (a segfault in get_page, seen in a CI run). One PDF at a time.
_PDFIUM = threading.Lock()


@dataclass(frozen=True, slots=True)
class PdfPages:
    """A PDF's text page by page (index 0 is page 1), for sources that cite a page."""

    title: str
    pages: tuple[str, ...]
    published: str | None
    page_count: int  # pages in the file; more than len(pages) when the cap cut it


def extract_pdf(data: bytes, *, max_pages: int = 50) -> Extracted:
    pdf = extract_pdf_pages(data, max_pages=max_pages)
    text = "\n\n".join(p for p in pdf.pages if p)
    return Extracted(title=pdf.title or _first_line(text), text=text, published=pdf.published)


def extract_pdf_pages(data: bytes, *, max_pages: int = 50) -> PdfPages:
    with _PDFIUM:
        return _extract(data, max_pages)


def _extract(data: bytes, max_pages: int) -> PdfPages:
    import pypdfium2

    try:
        document = pypdfium2.PdfDocument(data)
    except pypdfium2.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise FetchError("encrypted pdf (needs a password)", cause="unsupported") from exc
        raise FetchError(f"unreadable pdf: {exc}", cause="unsupported") from exc
    try:
        metadata = document.get_metadata_dict(skip_empty=True)
        count = len(document)
        pages = tuple(_page_text(document, i) for i in range(min(count, max_pages)))
    finally:
        document.close()
    title = " ".join(str(metadata.get("Title", "")).split())
    return PdfPages(title, pages, _pdf_date(metadata.get("CreationDate", "")), count)


def _page_text(document: pypdfium2.PdfDocument, index: int) -> str:
    page = document[index]
    try:
        textpage = page.get_textpage()
        try:
            raw = textpage.get_text_range()
        finally:
            textpage.close()
    finally:
        page.close()
    # pdfium ends lines with CRLF; keep paragraphs, drop the trailing spaces of each line.
    return "\n".join(line.rstrip() for line in raw.replace("\r\n", "\n").split("\n")).strip()


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:200]
    return ""


def _pdf_date(value: str) -> str | None:
    match = _PDF_DATE.match(value.strip())
    if not match:
        return None
    year, month, day = match.groups()
    if not ("01" <= month <= "12" and "01" <= day <= "31"):
        return None
    return f"{year}-{month}-{day}"
