"""DOCX, PPTX and XLSX to citable sections, with python-docx, python-pptx and openpyxl.

Chosen over markitdown after measuring (docs/contributing.md): 5-19x faster on the same files
and a small fraction of the install. python-docx and openpyxl are small pure-Python packages in
the base install; python-pptx pulls in Pillow, so it lives in the `sleuth[pptx]` extra and a
PPTX file without it is skipped with that hint.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from typing import Any

from ..errors import UnreadableFile
from ..extras import install_hint
from .documents import Document, Section, nonempty
from .tabular import cell_text, row_line, table_sections

# A heading opens a new section of a DOCX so a long document is cited by the part it is in.
_HEADING_STYLES = ("Heading", "Title")


def _open_zip(data: bytes, kind: str) -> None:
    """A clear reason for the common ways an Office file is broken, before the library fails."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            bad = archive.testzip()
    except zipfile.BadZipFile:
        raise UnreadableFile(f"not a valid {kind.upper()} file (damaged zip)") from None
    if bad is not None:
        raise UnreadableFile(f"damaged {kind.upper()} file ({bad} is corrupt)")


def convert_docx(data: bytes, name: str) -> Document:
    import docx
    from docx.table import Table

    _open_zip(data, "docx")
    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises many kinds on malformed XML
        raise UnreadableFile(f"unreadable DOCX: {type(exc).__name__}") from exc
    sections: list[Section] = []
    heading, tables = "", 0
    lines: list[str] = []
    for block in document.iter_inner_content():
        if isinstance(block, Table):
            sections.append(_prose(heading, lines))
            lines = []
            tables += 1
            sections += _docx_table(block, tables)
            continue
        text = block.text.strip()
        style = block.style.name if block.style is not None else ""
        if text and style.startswith(_HEADING_STYLES):
            sections.append(_prose(heading, lines))
            heading, lines = text, [text]
        elif text:
            lines.append(text)
    sections.append(_prose(heading, lines))
    title = (document.core_properties.title or "").strip()
    return Document(title or _first(sections) or name, "docx", nonempty(sections))


def _prose(heading: str, lines: list[str]) -> Section:
    return Section(f"section “{heading}”" if heading else "", "\n".join(lines))


def _docx_table(table: Any, number: int) -> list[Section]:
    rows = ((i, [cell_text(c.text) for c in row.cells]) for i, row in enumerate(table.rows, 1))
    return table_sections(rows, f"table {number}", f"table={number}")


def _first(sections: list[Section]) -> str:
    for s in sections:
        for line in s.text.splitlines():
            if line.strip():
                return line.strip()[:200]
    return ""


def convert_pptx(data: bytes, name: str) -> Document:
    try:
        import pptx
    except ImportError:
        raise UnreadableFile(
            f"PPTX needs the optional converter: {install_hint('pptx')}", lasting=False
        ) from None
    _open_zip(data, "pptx")
    try:
        deck = pptx.Presentation(io.BytesIO(data))
    except Exception as exc:  # python-pptx raises many kinds on malformed XML
        raise UnreadableFile(f"unreadable PPTX: {type(exc).__name__}") from exc
    sections = [
        Section(f"slide {n}", "\n".join(_slide_lines(slide)), f"slide={n}")
        for n, slide in enumerate(deck.slides, 1)
    ]
    title = (deck.core_properties.title or "").strip()
    return Document(title or _first(sections) or name, "pptx", nonempty(sections))


def _slide_lines(slide: Any) -> Iterator[str]:
    for shape in slide.shapes:
        if getattr(shape, "has_text_frame", False) and shape.text_frame.text.strip():
            yield shape.text_frame.text.strip()
        if getattr(shape, "has_table", False):
            header: list[str] = []
            for i, row in enumerate(shape.table.rows):
                cells = [cell_text(c.text) for c in row.cells]
                if i == 0:
                    header = cells
                else:
                    yield row_line(header, cells)
    if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
        notes = slide.notes_slide.notes_text_frame.text.strip()
        if notes:
            yield notes


def convert_xlsx(data: bytes, name: str) -> Document:
    import openpyxl

    _open_zip(data, "xlsx")
    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many kinds on malformed XML
        raise UnreadableFile(f"unreadable XLSX: {type(exc).__name__}") from exc
    try:
        sections: list[Section] = []
        for sheet in book.worksheets:
            rows = (
                (i, [cell_text(v) for v in values])
                for i, values in enumerate(sheet.iter_rows(values_only=True), 1)
            )
            sections += table_sections(rows, f"sheet {sheet.title}", f"sheet={sheet.title}")
        title = (book.properties.title or "").strip() if book.properties else ""
    finally:
        book.close()
    return Document(title or name, "xlsx", nonempty(sections))
