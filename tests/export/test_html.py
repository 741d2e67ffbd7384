from __future__ import annotations

import re

import html5lib
import pytest

from sleuth.export import format_for, render, render_html
from sleuth.export.html import render_answer
from sleuth.store import SessionRecord

from ..store.factories import make_record, make_result, make_source

REPORT = """Intro with a claim [1] and two [1, 2].

## Pricing changes

Prices rose [2].

## Pricing changes

A second heading with the same title.

### Sources

A heading named like the page's own section.
"""

HOSTILE = """<script>alert("x")</script> Look [1].

[click me](javascript:alert(1)) and <img src=x onerror=alert(1)> and
![tracker](https://evil.example/pixel.png) and <a href="javascript:alert(2)">raw</a>.
"""


def _strict_parse(page: str) -> None:
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    parser.parse(page)  # raises html5lib ParseError on any parse error
    assert parser.errors == []


def _record(answer: str, **kw: object) -> SessionRecord:
    return make_record(result=make_result(answer=answer, **kw))  # type: ignore[arg-type]


def test_report_is_valid_html_with_toc_anchors_and_citation_links() -> None:
    page = render_html(_record(REPORT))
    _strict_parse(page)
    ids = re.findall(r'id="([^"]+)"', page)
    assert len(ids) == len(set(ids)), "ids must be unique"
    assert '<h2 id="pricing-changes">' in page
    assert '<h2 id="pricing-changes-2">' in page
    assert '<h3 id="sources-2">' in page  # does not collide with the source list
    assert '<nav id="contents" class="toc">' in page
    assert '<a href="#pricing-changes">Pricing changes</a>' in page
    assert page.count('<sup class="cite"><a href="#src-1">1</a></sup>') == 2
    assert '<sup class="cite"><a href="#src-2">2</a></sup>' in page
    for target in re.findall(r'href="#([^"]+)"', page):
        assert target in ids


def test_sources_show_title_url_dates_and_authority_badge() -> None:
    page = render_html(_record(REPORT))
    item = re.search(r'<li id="src-1".*?</li>', page, re.S)
    assert item is not None
    text = item.group(0)
    assert '<a href="https://www.sqlite.org/wal.html">Write-Ahead Logging</a>' in text
    assert "fetched 2026-05-07" in text
    assert "published 2024-03-15" in text
    assert '<span class="badge badge-primary">primary</span>' in text
    assert "search snippet only" in page  # source 2 was not read


def test_self_contained_light_dark_and_print() -> None:
    page = render_html(_record(REPORT))
    assert "<script" not in page
    assert not re.search(r'(src|href)="(https?:)?//[^"]*\.(css|js|png|woff2?)"', page)
    assert "<link" not in page
    assert "prefers-color-scheme: dark" in page
    assert "@media print" in page


def test_few_headings_get_no_toc_and_unknown_markers_stay_text() -> None:
    page = render_html(_record("One [1]. Unknown [9].\n\n## Only heading\n"))
    _strict_parse(page)
    assert "toc" not in page.split("<style>")[0] + page.split("</style>")[1]
    assert "Unknown [9]." in page


def test_hostile_answer_is_inert() -> None:
    page = render_html(_record(HOSTILE))
    _strict_parse(page)
    body = page.split("</style>", 1)[1]
    assert "<script" not in body
    assert "<img" not in body
    assert "javascript:" not in re.findall(r'href="([^"]*)"', body).__repr__()
    assert "onerror" not in re.findall(r"<[^>]+>", body).__repr__()
    assert "&lt;script&gt;" in body


def test_hostile_source_metadata_is_escaped() -> None:
    evil = make_source(1, "javascript:alert(1)", title='<b onmouseover="x">t</b>')
    page = render_html(_record("Claim [1].", sources=(evil,)))
    _strict_parse(page)
    assert 'href="javascript:' not in page
    assert "&lt;b onmouseover=&quot;x&quot;&gt;" in page


def test_structured_data_is_shown_as_json() -> None:
    page = render_html(_record("", data={"name": "<SQLite>"}))
    _strict_parse(page)
    assert "&quot;name&quot;: &quot;&lt;SQLite&gt;&quot;" in page


def test_heading_text_for_toc_drops_markers_and_keeps_code() -> None:
    _, headings = render_answer("## The `wal` mode [1]\n", {1})
    assert headings == [(2, "the-wal-mode", "The wal mode")]


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("r.html", "html"),
        ("R.HTM", "html"),
        ("a.md", "md"),
        ("x.json", "json"),
        ("x.txt", "md"),
        ("x.pdf", None),
    ],
)
def test_format_for(name: str, fmt: str | None) -> None:
    assert format_for(name) == fmt


def test_render_dispatches_and_rejects_unknown() -> None:
    record = _record(REPORT)
    assert render(record, "html").startswith("<!DOCTYPE html>")
    assert render(record, "md").startswith("# how does sqlite wal work?")
    assert '"result"' in render(record, "json")
    with pytest.raises(Exception, match="unknown export format"):
        render(record, "pdf")
