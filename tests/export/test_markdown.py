from __future__ import annotations

import json

from sleuth.export import render_json, render_markdown
from sleuth.export.markdown import source_line

from ..store.factories import ANSWER, make_record, make_result, make_source


def test_markdown_has_answer_and_sources_list() -> None:
    text = render_markdown(make_record())
    assert text.startswith("# how does sqlite wal work?\n\n" + ANSWER.strip())
    assert "\n## Sources\n\n1. [Write-Ahead Logging](https://www.sqlite.org/wal.html)" in text
    assert "fetched 2026-05-07 · published 2024-03-15 · primary" in text
    assert (
        "2. [Source 2](https://blog.example.net/sqlite) — fetched 2026-05-07 · unknown · " in text
    )


def test_source_titles_cannot_break_the_link() -> None:
    line = source_line(make_source(3, "https://x.example/a b)", title="a [tricky]\ntitle"))
    assert line.startswith("3. [a \\[tricky\\] title](https://x.example/a%20b%29)")


def test_json_export_omits_source_text_and_carries_the_record() -> None:
    record = make_record(tags=("a",))
    data = json.loads(render_json(record))
    assert data["id"] == record.id
    assert data["tags"] == ["a"]
    assert data["result"]["session_id"] == record.id
    assert "text" not in data["result"]["sources"][0]


def test_structured_result_renders_as_json_block() -> None:
    text = render_markdown(make_record(result=make_result(answer=None, data={"a": 1})))
    assert '```json\n{\n  "a": 1\n}\n```' in text


def test_a_knowledge_base_source_shows_its_location() -> None:
    line = source_line(make_source(1, "file:///r/notes.pdf#page=3", location="p. 3"))
    assert line.startswith("1. [") and "](file:///r/notes.pdf#page=3) — p. 3 · " in line
