"""Rows of a table (CSV, a spreadsheet sheet, a DOCX table) as citable text.

Every row is written with its header, `Region: EU; Plan: Pro; Price: 12 EUR.`, so a passage cut
from the middle of a long table still says what each value means, and a row reads as a sentence
the extractive writer can cite and the citation check can verify. Rows are grouped into sections
of at most ROWS_PER_SECTION rows or SECTION_WORDS words, each located by its row numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .documents import Section

ROWS_PER_SECTION = 40
SECTION_WORDS = 600


def cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return " ".join(str(value).split())


def row_line(header: Sequence[str], row: Sequence[str]) -> str:
    """`Header: value; ...` for the non-empty cells of a row (positional names past the header)."""
    parts = []
    for i, value in enumerate(row):
        if not value:
            continue
        name = header[i] if i < len(header) and header[i] else ""
        parts.append(f"{name}: {value}" if name else value)
    if not parts:
        return ""
    line = "; ".join(parts)
    return line if line.endswith((".", "!", "?")) else line + "."


def table_sections(
    rows: Iterable[tuple[int, Sequence[str]]], where: str, anchor: str = ""
) -> list[Section]:
    """Sections of `rows` ((row number, cells), first row the header), each named by its rows:
    `where` is a prefix like "sheet Prices" ("" for a CSV file)."""
    it = iter(rows)
    first = next(it, None)
    if first is None:
        return []
    header = [c for c in first[1]]
    sections: list[Section] = []
    lines: list[str] = []
    numbers: list[int] = []
    words = 0
    for number, cells in it:
        line = row_line(header, cells)
        if not line:
            continue
        if lines and (len(lines) >= ROWS_PER_SECTION or words + len(line.split()) > SECTION_WORDS):
            sections.append(_section(lines, numbers, where, anchor))
            lines, numbers, words = [], [], 0
        lines.append(line)
        numbers.append(number)
        words += len(line.split())
    if lines:
        sections.append(_section(lines, numbers, where, anchor))
    if not sections and any(header):  # a table that is only a header still says something
        sections.append(Section(_location(where, [first[0]]), row_line([], header), anchor))
    return sections


def _section(lines: list[str], numbers: list[int], where: str, anchor: str) -> Section:
    rows = f"rows={numbers[0]}-{numbers[-1]}"
    return Section(_location(where, numbers), "\n".join(lines), f"{anchor}&{rows}".lstrip("&"))


def _location(where: str, numbers: list[int]) -> str:
    rows = f"row {numbers[0]}" if numbers[0] == numbers[-1] else f"rows {numbers[0]}–{numbers[-1]}"
    return f"{where}, {rows}" if where else rows
