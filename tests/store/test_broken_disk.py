"""A broken disk under SLEUTH_HOME (issue 12, items 4 and 5): damaged databases are moved aside
with a warning, never overwritten; what is not a file is refused without being touched; a new
home opened by many processes at once is migrated exactly once."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sleuth.errors import StoreError
from sleuth.fetch.cache import SqlitePageCache
from sleuth.store import SessionStore
from sleuth.types import Page
from tests.store.factories import make_record

GARBAGE = bytes(range(256)) * 40


def a_page(url: str = "http://example.org/a") -> Page:
    return Page(url=url, title="A", text="Audit logs are kept for ninety days.", fetched_at="x")


def full_store(path: Path, sessions: int = 40) -> None:
    store = SessionStore(path)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for n in range(sessions):
        store.save(make_record(start + timedelta(minutes=n), question=f"question {n} " * 40))


def moved_aside(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.corrupt-*"))


def test_a_garbage_session_file_is_moved_aside_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "sessions.db"
    path.write_bytes(GARBAGE)
    with caplog.at_level(logging.WARNING, logger="sleuth"):
        store = SessionStore(path)
    [aside] = moved_aside(path)
    assert aside.read_bytes() == GARBAGE  # kept as it was, for the user to inspect
    assert f"moved it to {aside}" in caplog.text and "not a database" in caplog.text
    store.save(make_record())
    assert len(store.list()) == 1


def test_a_truncated_session_file_is_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    full_store(path)
    size = path.stat().st_size
    with path.open("r+b") as handle:
        handle.truncate(size // 2)
    store = SessionStore(path)
    [aside] = moved_aside(path)
    assert aside.stat().st_size == size // 2
    assert store.list() == ()


def test_damage_found_after_opening_is_a_store_error_and_moves_the_file(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    full_store(path)
    store = SessionStore(path)
    data = path.read_bytes()
    noise = (GARBAGE * (len(data) // len(GARBAGE) + 1))[: len(data) - 4096]
    path.write_bytes(data[:4096] + noise)  # the header page intact, every other page noise
    with pytest.raises(StoreError, match="was damaged; moved it to"):
        store.list()
    assert moved_aside(path)
    assert SessionStore(path).list() == ()


@pytest.mark.parametrize("kind", ["directory", "dev-null", "fifo"])
def test_what_is_not_a_file_is_refused_and_left_alone(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "sessions.db"
    if kind == "directory":
        path.mkdir()
    elif kind == "dev-null":
        path.symlink_to("/dev/null")
    else:
        os.mkfifo(path)  # opening it would block: it must not be opened at all
    with pytest.raises(StoreError, match="not a database file"):
        SessionStore(path)
    assert not moved_aside(path)
    assert path.is_dir() if kind == "directory" else not path.is_file()


def test_an_unwritable_home_is_a_store_error(tmp_path: Path) -> None:
    (tmp_path / "home").write_text("a file where the directory should be")
    with pytest.raises(StoreError, match="cannot create"):
        SessionStore(tmp_path / "home" / "sessions.db")


def test_a_damaged_page_cache_is_replaced_and_keeps_working(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "cache.db"
    path.write_bytes(GARBAGE)
    with caplog.at_level(logging.WARNING, logger="sleuth"):
        cache = SqlitePageCache(path)
    assert moved_aside(path) and "page cache" in caplog.text
    cache.put(a_page())
    assert cache.get("http://example.org/a") is not None


@pytest.mark.parametrize("kind", ["dev-null", "directory", "unwritable-home"])
def test_an_unusable_page_cache_turns_itself_off_with_one_warning(
    tmp_path: Path, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "cache.db"
    if kind == "dev-null":
        path.symlink_to("/dev/null")
    elif kind == "directory":
        path.mkdir()
    else:
        (tmp_path / "home").write_text("not a directory")
        path = tmp_path / "home" / "cache.db"
    with caplog.at_level(logging.WARNING, logger="sleuth"):
        cache = SqlitePageCache(path)
        cache.put(a_page())
        assert cache.get("http://example.org/a") is None
        assert cache.prune() == 0
    assert cache.unavailable is not None
    assert len([r for r in caplog.records if r.name == "sleuth"]) == 1


def test_a_garbled_cache_entry_is_a_miss(tmp_path: Path) -> None:
    import sqlite3

    cache = SqlitePageCache(tmp_path / "cache.db")
    cache.put(a_page())
    with sqlite3.connect(tmp_path / "cache.db") as db:
        db.execute("UPDATE pages SET page = '{not json'")
    assert cache.get("http://example.org/a") is None


OPEN_AND_LIST = "from sleuth.store import SessionStore; SessionStore().list()"


@pytest.mark.parametrize("trial", range(4))
def test_eight_processes_opening_a_new_home_at_once_all_succeed(tmp_path: Path, trial: int) -> None:
    """8 concurrent `sessions ls` on a new SLEUTH_HOME failed 17 times in 200 with "table
    sessions already exists": the migration read the version outside its write lock."""
    env = {**os.environ, "SLEUTH_HOME": str(tmp_path / f"home-{trial}")}
    children = [
        subprocess.Popen(
            [sys.executable, "-c", OPEN_AND_LIST], env=env, stderr=subprocess.PIPE, text=True
        )
        for _ in range(8)
    ]
    errors = [child.communicate(timeout=60)[1] for child in children]
    assert [c.returncode for c in children] == [0] * 8, "\n".join(filter(None, errors))


def test_text_sqlite_cannot_hold_is_a_store_error(tmp_path: Path) -> None:
    """A library caller's question with a lone surrogate used to raise UnicodeEncodeError
    from the save, which the application does not expect; now it is a StoreError."""
    store = SessionStore(tmp_path / "sessions.db")
    with pytest.raises(StoreError, match="cannot store this session"):
        store.save(make_record(question="lone surrogate \udcff here"))
    assert store.list() == ()
