from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sleuth.errors import UsageError
from sleuth.store import SessionRecord, SessionStore, new_session_id, normalize_tags
from sleuth.store.sessions import MIGRATIONS, sessions_db_path

from .factories import make_record, make_result, make_source

DAY = datetime(2026, 5, 7, 12, 0, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path, backend: str | None) -> SessionStore:
    """The session store on SQLite, and on PostgreSQL (the same tests, both backends)."""
    if backend is None:
        return SessionStore(tmp_path / "sessions.db")
    from sleuth.store.sessions_pg import PgSessionStore

    return PgSessionStore(backend)


def _save(store: SessionStore, days_ago: float = 0, **kw: object) -> SessionRecord:
    record = make_record(DAY - timedelta(days=days_ago), **kw)  # type: ignore[arg-type]
    store.save(record)
    return record


def test_ids_sort_by_time_and_carry_eight_hex() -> None:
    sid = new_session_id(DAY)
    assert re.fullmatch(r"2026-05-07_120000_[0-9a-f]{8}", sid)
    assert new_session_id(DAY) != sid
    assert new_session_id(DAY - timedelta(seconds=1)) < sid


def test_default_path_is_under_sleuth_home(sleuth_home: Path) -> None:
    assert sessions_db_path() == sleuth_home / "sessions.db"
    assert SessionStore().path.exists()


def test_save_and_get_round_trip(store: SessionStore) -> None:
    record = make_record(DAY, tags=("Client-X", "#audit"), parent_id="2026-05-01_000000_abcdabcd",
                         plan=("a", "b"), rounds=({"round": 1, "queries": ["a"]},))  # fmt: skip
    assert store.save(record) == record.id
    back = store.get(record.id)
    assert back == record
    assert back.result.session_id == record.id
    assert back.tags == ("audit", "client-x")
    assert back.result.sources[0].text == record.result.sources[0].text


def test_schema_is_migrated_once_and_in_wal_mode(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions.db")
    with closing(sqlite3.connect(store.path)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    again = SessionStore(store.path)  # reopening must not re-run migration 1
    assert again.list() == ()


def test_listing_carries_each_runs_confidence(store: SessionStore) -> None:
    _save(store, result=make_result(confidence="low"))
    assert [s.confidence for s in store.list()] == ["low"]


def test_listing_carries_confidence_and_stage_also_for_sessions_saved_before_them(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path / "sessions.db")
    steered = {"depth": "steered", "steering": {"stage": "plan"}}
    store.save(make_record(DAY, result=make_result(confidence="medium"), options=steered))
    assert [(s.confidence, s.stage) for s in store.list()] == [("medium", "plan")]
    with closing(sqlite3.connect(store.path)) as conn:  # as a version-3 file had it
        conn.execute("ALTER TABLE sessions DROP COLUMN confidence")
        conn.execute("ALTER TABLE sessions DROP COLUMN stage")
        conn.execute("PRAGMA user_version = 3")
        conn.commit()
    assert [(s.confidence, s.stage) for s in SessionStore(store.path).list()] == [
        ("medium", "plan")
    ]


def test_a_save_remembers_the_row_a_listing_reads_and_another_write_does_not(
    store: SessionStore,
) -> None:
    before = store.changes
    record = _save(store, tags=("Zeta", "#alpha"), org="acme", parent_id="2026-05-01_000000_ab",
                   options={"depth": "steered", "steering": {"stage": "plan"}})  # fmt: skip
    assert store.saved_since(before) == (before + 1, tuple(store.list()))
    assert store.saved_since(before + 1) == (before + 1, ())
    store.tag(record.id, "later")
    assert store.saved_since(before) is None  # a listing read before the tag is out of date
    free = make_record(DAY + timedelta(minutes=1), result=make_result(cost=None, confidence="low"))
    store.save(free)
    assert store.saved_since(before + 2) == (before + 3, (store.list(limit=1)[0],))


def test_a_listing_read_before_more_writes_than_are_remembered_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sleuth.store.sessions as module

    monkeypatch.setattr(module, "SAVES_KEPT", 2)
    store = SessionStore(tmp_path / "sessions.db")
    for minutes in range(3):
        _save(store, days_ago=-minutes / 1440)  # each newer than the last
    assert store.saved_since(0) is None
    assert store.saved_since(1) == (3, tuple(reversed(store.list()[:2])))


def test_duplicate_id_is_refused(store: SessionStore) -> None:
    record = _save(store)
    with pytest.raises(UsageError, match="already exists"):
        store.save(record)


def test_unique_prefix_unknown_and_ambiguous(store: SessionStore) -> None:
    a = _save(store)
    b = _save(store, days_ago=1)
    assert store.get(a.id[:-3]).id == a.id
    assert store.get("2026-05-06").id == b.id
    with pytest.raises(UsageError, match="no session matches '2025'"):
        store.get("2025")
    with pytest.raises(UsageError, match="matches several sessions"):
        store.get("2026-05")
    with pytest.raises(UsageError, match="required"):
        store.get("  ")


def test_list_is_newest_first_and_filters(store: SessionStore) -> None:
    old = _save(store, days_ago=3, question="What is 100% of SQLite?", tags=("db",))
    new = _save(store, days_ago=1, question="Rust async runtimes", tags=("rust", "db"))
    assert [s.id for s in store.list()] == [new.id, old.id]
    assert [s.id for s in store.list("sqlite")] == [old.id]
    assert [s.id for s in store.list("100%")] == [old.id]
    assert store.list("10_%") == ()  # LIKE wildcards are literal
    assert [s.id for s in store.list(tag="RUST")] == [new.id]
    assert [s.id for s in store.list("rust", tag="db")] == [new.id]
    summary = store.list()[0]
    assert summary.tags == ("db", "rust")
    assert (summary.sources, summary.models, summary.cost_usd) == (2, ("gpt-test",), 0.0123)


def test_full_text_search_reads_answers_and_sources_not_json_keys(store: SessionStore) -> None:
    wal = _save(store, days_ago=2, question="how does sqlite wal work?", tags=("db",))
    other = make_result(
        query="Rust async?",
        answer='Tokio schedules tasks on a work-stealing "runtime" [1].',
        sources=(make_source(1, "https://tokio.rs/", title="Tokio Überblick",
                             text="Tokio is an asynchronous runtime for Rust. C:\\tokio"),),
    )  # fmt: skip
    rust = _save(store, days_ago=1, question="Rust async?", result=other, tags=("rust",))
    assert [s.id for s in store.list(text="readers BLOCK")] == [wal.id]  # in the answer
    assert [s.id for s in store.list(text="work-stealing")] == [rust.id]
    assert [s.id for s in store.list(text="überblick")] == [rust.id]  # a source title
    assert [s.id for s in store.list(text='"runtime"')] == [rust.id]  # quotes, JSON-escaped
    assert [s.id for s in store.list(text="C:\\tokio")] == [rust.id]  # a backslash
    assert [s.id for s in store.list(text="asynchronous Rust")] == [rust.id]  # every word
    assert store.list(text="asynchronous sqlite") == ()
    assert store.list(text="passages fetched_at authority") == ()  # JSON keys are not content
    assert store.list(text="100%") == () and store.list(text="_") == ()  # wildcards literal
    assert [s.id for s in store.list(text="the", tag="db")] == [wal.id]
    assert len(store.list(text="a")) == 2
    assert [s.id for s in store.list(text="a", limit=1)] == [rust.id]  # the newest


def test_tag_and_untag(store: SessionStore) -> None:
    record = _save(store)
    assert store.tag(record.id[:12], "a, B,#c") == ("a", "b", "c")
    assert store.tag(record.id, ["b"]) == ("a", "b", "c")
    assert store.untag(record.id, "a,zzz") == ("b", "c")
    assert store.get(record.id).tags == ("b", "c")


def test_rm_is_all_or_nothing(store: SessionStore) -> None:
    a, b = _save(store), _save(store, days_ago=1)
    store.tag(a.id, "x")
    with pytest.raises(UsageError):
        store.rm([a.id, "1999"])
    assert len(store.list()) == 2
    assert store.rm([a.id, a.id[:15]]) == (a.id,)
    assert [s.id for s in store.list()] == [b.id]
    assert store.list(tag="x") == ()


def test_prune_refuses_without_a_rule(store: SessionStore) -> None:
    _save(store)
    with pytest.raises(UsageError, match="--older-than"):
        store.prune()
    with pytest.raises(UsageError, match="--keep"):
        store.prune(keep=-1)


def test_prune_by_age_keep_and_both(store: SessionStore) -> None:
    ids = [_save(store, days_ago=d).id for d in (0, 10, 40, 50)]  # newest first
    now = DAY + timedelta(hours=1)
    assert store.prune(older_than=timedelta(days=30), dry_run=True, now=now) == tuple(ids[2:])
    assert len(store.list()) == 4  # dry run deletes nothing
    assert store.prune(keep=3, dry_run=True) == (ids[3],)
    both = store.prune(older_than=timedelta(days=5), keep=3, dry_run=True, now=now)
    assert both == (ids[3],)  # 10d-old is past the cutoff but inside the newest three
    assert store.prune(older_than=timedelta(days=30), now=now) == tuple(ids[2:])
    assert [s.id for s in store.list()] == ids[:2]
    assert store.prune(keep=0) == tuple(ids[:2])


def test_stats_totals_and_per_model(store: SessionStore) -> None:
    assert store.stats().sessions == 0
    _save(store, days_ago=2, model="gpt-test", tags=("x",))
    _save(store, days_ago=1, model="gpt-test")
    _save(store, model="claude-test", tags=("x",))
    stats = store.stats()
    assert (stats.sessions, stats.sources, stats.rounds) == (3, 6, 3)
    assert stats.cost_usd == pytest.approx(0.0369)
    assert stats.by_model["gpt-test"].calls == 4
    assert stats.by_model["gpt-test"].cost_usd == pytest.approx(0.0246)
    assert stats.first is not None
    assert stats.first.startswith("2026-05-05")
    assert stats.last is not None
    assert stats.last.startswith("2026-05-07")
    tagged = store.stats(tag="x")
    assert tagged.sessions == 2
    assert set(tagged.by_model) == {"gpt-test", "claude-test"}
    assert tagged.to_json()["cost_usd"] == pytest.approx(0.0246)


def test_normalize_tags() -> None:
    assert normalize_tags(" A,#b ,, a ") == ("a", "b")
    assert normalize_tags(["x,y", "Y"]) == ("x", "y")


def test_revisions_are_numbered_kept_and_removed_with_their_session(store: SessionStore) -> None:
    """The web UI's edits of an answer: numbered from 1, in order, removed with their
    session; the saved result itself never changes."""
    record = _save(store, result=make_result(answer="A [1]."))
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


def test_a_new_file_opened_while_another_process_writes_it_still_switches_to_wal(
    tmp_path: Path,
) -> None:
    # SQLite refuses the switch to WAL at once ("database is locked", no busy wait) while
    # another connection writes: 1 in 200 `sessions ls` run 8 at a time on new homes failed so.
    import threading

    path = tmp_path / "sessions.db"
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("CREATE TABLE other (x)")
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO other VALUES (1)")
    threading.Timer(0.5, lambda: writer.execute("COMMIT")).start()
    try:
        store = SessionStore(path)  # switches to WAL and migrates once the writer commits
        assert not store.list()
    finally:
        writer.close()
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
