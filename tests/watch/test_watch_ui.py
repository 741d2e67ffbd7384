"""The History page marks the runs of watched questions, and says which found a change."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("jinja2", reason="the web UI needs sleuth[server]")
import httpx

from sleuth.app.watch import new_watch
from sleuth.server.config import ServerConfig
from sleuth.store import SessionStore, sessions_db_path
from sleuth.store.backend import watch_store
from sleuth.store.records import SessionRecord
from sleuth.store.watches import WatchRun
from tests.graph.results import CLOUD, result, source
from tests.server.harness import serving


def save(question: str, parent: str | None = None) -> str:
    record = SessionRecord.new(
        question, result(source(1, CLOUD), query=question, answer="A [1]."), parent_id=parent
    )
    return SessionStore(sessions_db_path()).save(record)


def test_history_marks_watched_runs_and_changes(sleuth_home: Path) -> None:
    q = "How long are audit logs kept?"
    first = save(q)
    second = save(q, parent=first)
    third = save(q, parent=second)
    other = save("Who sells to banks in Frankfurt?")
    store = watch_store(sleuth_home)
    watch = store.add(new_watch(q, "1d"))
    for session, parent, status in (
        (first, None, "first"),
        (second, first, "unchanged"),
        (third, second, "changed"),
    ):
        store.finish(WatchRun(watch.id, session, parent, "2026-12-03T00:00:00Z", status), 0.0)

    with serving(ServerConfig(open_access=True)) as served:
        page = httpx.get(f"{served.base}/history", headers={"Accept": "text/html"}).text
    marks = dict(
        re.findall(
            r'href="/runs/([^"]+)">[^<]*</a>\s*<span class="badge [^"]*" '
            r'data-watch="[^"]+">([^<]+)</span>',
            page,
        )
    )
    assert marks == {
        third: "watched · answer changed",
        second: "watched",
        first: "watched",
    }
    assert other in page and other not in marks
