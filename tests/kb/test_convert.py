"""Converters: every supported type becomes citable sections; bad files get a clear reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from sleuth.errors import UnreadableFile
from sleuth.kb.convert import convert, decide_kind, line_sections, sniff
from tests.kb.docs import make_bad_files, make_folder


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return make_folder(tmp_path_factory.mktemp("docs"))


def _convert(path: Path) -> tuple[str, list[tuple[str, str]]]:
    doc = convert(path.read_bytes(), path.name)
    return doc.kind, [(s.location, s.text) for s in doc.sections]


def test_pdf_keeps_page_numbers(folder: dict[str, Path]) -> None:
    kind, sections = _convert(folder["pdf"])
    assert kind == "pdf"
    assert [loc for loc, _ in sections] == ["p. 1", "p. 2", "p. 3"]
    assert "glorbium boils at 412 kelvin" in sections[2][1].replace("\n", " ")
    assert "glorbium" not in sections[0][1] + sections[1][1]


def test_docx_table_rows_carry_their_header(folder: dict[str, Path]) -> None:
    kind, sections = _convert(folder["docx"])
    assert kind == "docx"
    table = dict(sections)["table 1, rows 2–3"]
    assert "Plan: Quasar; Monthly price: 37 zorkmids; Storage: 9 TB." in table.splitlines()
    assert any(loc == "section “Support”" for loc, _ in sections)


def test_pptx_one_section_per_slide(folder: dict[str, Path]) -> None:
    _, sections = _convert(folder["pptx"])
    assert [loc for loc, _ in sections] == ["slide 1", "slide 2"]
    assert "eleven engineers" in sections[1][1]


def test_xlsx_and_csv_rows(folder: dict[str, Path]) -> None:
    _, sheet = _convert(folder["xlsx"])
    assert sheet[0][0] == "sheet Prices, rows 2–3"
    assert "Fruit: Durian; Price per kilo: 14; Origin: Thailand." in sheet[0][1]
    _, csv_rows = _convert(folder["csv"])
    assert csv_rows == [
        ("rows 2–3", "City: Tromsø; Population: 77000; Country: Norway.\n"
                     "City: Oulu; Population: 210000; Country: Finland.")
    ]  # fmt: skip


def test_epub_html_markdown_text(folder: dict[str, Path]) -> None:
    _, chapters = _convert(folder["epub"])
    assert [loc for loc, _ in chapters] == ["chapter 1", "chapter 2"]
    assert "nine nights" in chapters[1][1]
    _, html = _convert(folder["html"])
    assert "forty minutes" in html[0][1] and "Home" not in html[0][1]
    assert convert(folder["markdown"].read_bytes(), "garden.md").title == "Garden log"
    assert "fourteen bicycles" in _convert(folder["text"])[1][0][1]


def test_long_text_is_cited_by_line_range() -> None:
    text = "".join(f"Line {i} says something about topic {i}.\n\n" for i in range(1, 2001))
    sections = line_sections(text, limit=2000)
    assert len(sections) > 5
    assert sections[0].location.startswith("lines 1–")
    assert "Line 1 says" in sections[0].text and "Line 2000 says" in sections[-1].text


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("corrupt", "unreadable pdf"),
        ("encrypted", "encrypted pdf"),
        ("empty", "empty file"),
        ("renamed", "content is PDF, not DOCX"),
    ],
)
def test_bad_files_say_why(tmp_path: Path, kind: str, reason: str) -> None:
    path = make_bad_files(tmp_path)[kind]
    with pytest.raises(UnreadableFile, match=reason):
        convert(path.read_bytes(), path.name)


def test_type_is_decided_by_content(folder: dict[str, Path]) -> None:
    data = folder["docx"].read_bytes()
    assert sniff(data) == "docx"
    assert decide_kind(data, "upload") == "docx"  # no extension: the content decides
    with pytest.raises(UnreadableFile, match="not a valid DOCX file"):
        decide_kind(b"just some words", "notes.docx")
    with pytest.raises(UnreadableFile, match="unsupported file type"):
        decide_kind(b"\x00\x01\x02binary", "blob")
    assert decide_kind(b"<!doctype html><p>x</p>", "page.txt") == "html"


def test_a_document_too_large_once_converted_never_leaves_the_worker() -> None:
    """A CSV of tiny cells triples as a table: past the cap, the worker refuses it with the
    reason, so its text never reaches the caller (the server, for an upload)."""
    from sleuth.kb.convert import sandboxed_convert

    cells = ("1,1,1,1,1,1,1,1\n" * 400).encode()
    assert len(sandboxed_convert(cells, "cells.csv").sections) > 0
    with pytest.raises(UnreadableFile, match=r"characters once converted, more than the 10,000"):
        sandboxed_convert(cells, "cells.csv", max_chars=10_000)
