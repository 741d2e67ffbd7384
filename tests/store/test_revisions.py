"""Revisions of a session's answer (the web UI's editor): numbered, kept in order, removed with
their session, and the saved result itself never changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from sleuth.errors import UsageError
from sleuth.store.codec import result_from_json
from sleuth.store.records import SessionRecord
from sleuth.store.sessions import SessionStore


def test_revisions_are_numbered_kept_and_removed_with_their_session(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions.db")
    record = SessionRecord.new("q", result_from_json({"query": "q", "answer": "A [1]."}))
    store.save(record)
    assert store.revisions(record.id) == []
    check = {"checked": 1, "supported": 1, "unsupported": []}
    assert store.add_revision(record.id, "B [1].", check, "edited") == 1
    assert store.add_revision(record.id[:20], "C 文 [1].", check, "shorter") == 2
    got = store.revisions(record.id)
    assert [(r.number, r.answer, r.note) for r in got] == [
        (1, "B [1].", "edited"),
        (2, "C 文 [1].", "shorter"),
    ]
    assert got[0].verification == check and store.get(record.id).result.answer == "A [1]."
    store.rm([record.id])
    with pytest.raises(UsageError):
        store.revisions(record.id)
    with pytest.raises(UsageError):
        store.add_revision("nope", "x", check, "edited")
