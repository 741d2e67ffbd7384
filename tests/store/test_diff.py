from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from sleuth.app.diff import diff_sessions, render_diff
from sleuth.store import SessionRecord

from .factories import make_record, make_result, make_source

T0 = datetime(2026, 5, 7, 12, 0, tzinfo=UTC)

OLD = """Intro line one [1].

The 5-hour bucket resets on a rolling window [2].
Middle one.
Middle two.
Middle three.
Closing line [1].
"""

NEW = """Intro line one [1].

The 5-hour bucket resets at a fixed UTC boundary [2].
Middle one.
Middle two.
Middle three.
Closing line [1].
"""


def _pair() -> tuple[SessionRecord, SessionRecord]:
    a_sources = (
        make_source(1, "https://www.example.com/x"),
        make_source(2, "https://example.com/y"),
    )
    b_sources = (
        make_source(1, "https://example.com/x/?utm_source=feed"),
        make_source(2, "https://newsource.com/z"),
    )
    a = make_record(T0, result=make_result(answer=OLD, sources=a_sources), model="model-a")
    b = make_record(
        T0 + timedelta(days=25),
        result=make_result(answer=NEW, sources=b_sources, model="model-b", cost=None),
        model="model-b",
        options={"depth": "deep"},
    )
    return a, b


def test_diff_metadata_sources_and_answer() -> None:
    a, b = _pair()
    diff = diff_sessions(a, b)
    assert diff.days_apart == 25
    changes = {c.name: (c.before, c.after) for c in diff.changes}
    assert changes["model"] == ("model-a", "model-b")
    assert changes["depth"] == ("quick", "deep")
    assert changes["cost"] == ("$0.0123", "unknown")
    assert "question" not in changes
    assert diff.sources_added == ("https://newsource.com/z",)
    assert diff.sources_removed == ("https://example.com/y",)
    assert diff.sources_shared == ("https://example.com/x/?utm_source=feed",)
    assert (diff.lines_added, diff.lines_removed, diff.lines_unchanged) == (1, 1, 5)
    assert diff.answer_diff == (
        "…",
        "  Intro line one [1].",
        "- The 5-hour bucket resets on a rolling window [2].",
        "+ The 5-hour bucket resets at a fixed UTC boundary [2].",
        "  Middle one.",
    )


def test_render_and_json() -> None:
    a, b = _pair()
    diff = diff_sessions(a, b)
    text = render_diff(diff)
    assert text.startswith(f"diff {diff.a_id} → {diff.b_id}\n  25d apart · 2026-05-07 → 2026-06-01")
    assert "  model         model-a → model-b" in text
    assert (
        "sources  +1 / -1 / 1 shared\n  + https://newsource.com/z\n  - https://example.com/y"
        in text
    )
    assert "answer  +1 / -1 lines (5 unchanged)" in text
    data = json.loads(json.dumps(diff.to_json()))
    assert data["sources"]["added"] == ["https://newsource.com/z"]
    assert data["answer"]["diff"][2].startswith("- The 5-hour")


def test_identical_runs_have_an_empty_diff() -> None:
    a = make_record(T0)
    b = make_record(T0 + timedelta(hours=3))
    diff = diff_sessions(a, b)
    assert diff.changes == ()
    assert diff.answer_diff == ()
    assert diff.sources_added == diff.sources_removed == ()
    assert "3h apart" in render_diff(diff)
    assert "metadata  (unchanged)" in render_diff(diff)
