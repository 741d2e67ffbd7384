"""SQLite files under SLEUTH_HOME that may be damaged, or not files at all.

The session store and the page cache are local files a user, a crash or a full disk can break:
a truncated or garbage `sessions.db`, a directory or `/dev/null` in its place, an unwritable
SLEUTH_HOME. None of that may cost an answer. A path that is not a regular file, or a home that
cannot be written, is a `StoreError` (one line, the caller decides what it costs); a damaged
database is moved aside — never deleted, never silently overwritten — with a warning on the
`sleuth` logger naming where it went, and a new one is started in its place.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import stat
import struct
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from ..errors import StoreError
from .read import describe_mode, why

T = TypeVar("T")
log = logging.getLogger("sleuth")

SQLITE_CORRUPT = 11
SQLITE_NOTADB = 26
_HEADER = b"SQLite format 3\x00"


def check_location(path: Path, what: str) -> None:
    """`path` may hold a database: absent or a regular file, in a directory that exists or can
    be made. Never opens it, so a FIFO or device in its place cannot block or be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"{what}: cannot create {path.parent}: {why(exc)}") from exc
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StoreError(f"{what}: cannot use {path}: {why(exc)}") from exc
    if not stat.S_ISREG(mode):
        kind = describe_mode(mode)
        raise StoreError(f"{what}: {path} is {kind}, not a database file; move it away")


def is_damaged(exc: sqlite3.Error) -> bool:
    """SQLite says the file is not a database, or that its contents are corrupt."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (SQLITE_CORRUPT, SQLITE_NOTADB)
    text = str(exc)
    return "not a database" in text or "malformed" in text


def truncated(path: Path) -> bool:
    """The file is shorter than its own header says (cut by a crash or a full disk).

    Cheap (100 bytes read) where a full integrity check costs a pass over the file. Only
    trusted when no WAL file holds pages that are not yet in the main file.
    """
    if Path(f"{path}-wal").exists():
        return False
    try:
        with path.open("rb") as handle:
            header = handle.read(100)
        size = path.stat().st_size
    except OSError:
        return False
    if len(header) < 100 or not header.startswith(_HEADER):
        return False  # empty (a new database) or garbage: SQLite itself reports the latter
    (page_size,) = struct.unpack(">H", header[16:18])
    (change, pages) = struct.unpack(">II", header[24:32])
    (valid_for,) = struct.unpack(">I", header[92:96])
    if valid_for != change:
        return False  # the in-header size is stale and means nothing (an old writer)
    return bool(size < pages * (65536 if page_size == 1 else page_size))


def move_aside(path: Path, what: str, reason: str) -> Path:
    """Rename a damaged database (and its -wal/-shm) out of the way; returns the new name."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    count = 1
    while target.exists():
        count += 1
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{count}")
    try:
        os.rename(path, target)
        for suffix in ("-wal", "-shm"):
            side = Path(f"{path}{suffix}")
            if side.exists():
                os.rename(side, Path(f"{target}{suffix}"))
    except OSError as exc:
        raise StoreError(f"{what}: {path} is damaged ({reason}) and cannot be moved aside") from exc
    log.warning(
        "%s %s was damaged (%s); moved it to %s and started a new one", what, path, reason, target
    )
    return target


def recovering(path: Path, what: str, action: Callable[[], T]) -> T:
    """`action()`, after moving a damaged database aside and starting again if it fails on
    one. Every other SQLite or OS failure becomes a one-line StoreError."""
    check_location(path, what)
    if truncated(path):
        move_aside(path, what, "the file is shorter than its header says")
    try:
        return _plain(path, what, action)
    except _Damaged as damaged:
        move_aside(path, what, damaged.why)
    return _plain(path, what, action, retry=True)


def refusing(path: Path, what: str, action: Callable[[], T]) -> T:
    """`action()` on a database that must not be replaced when damaged (the service's keys and
    quotas: a fresh file would silently revoke every key): damage is a one-line StoreError
    naming the file and what to do, and the file is left exactly as it is."""
    check_location(path, what)
    damage = "the file is shorter than its header says" if truncated(path) else None
    if damage is None:
        try:
            return _plain(path, what, action)
        except _Damaged as damaged:
            damage = damaged.why
    raise StoreError(
        f"{what}: {path} is damaged ({damage}); it is left untouched. Restore it from a backup, "
        f"or move it away to start an empty one (API keys must then be created again)"
    )


class _Damaged(Exception):
    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def _plain(path: Path, what: str, action: Callable[[], T], retry: bool = False) -> T:
    try:
        return action()
    except sqlite3.Error as exc:
        if is_damaged(exc) and not retry:
            raise _Damaged(str(exc)) from exc
        raise StoreError(f"{what}: {path}: {exc}") from exc
    except OSError as exc:
        raise StoreError(f"{what}: {path}: {why(exc)}") from exc


WAL_WAIT_S = 30.0  # as long as a connection's own busy timeout
WAL_RETRY_S = 0.02


def enable_wal(conn: sqlite3.Connection, wait_s: float = WAL_WAIT_S) -> None:
    """WAL lets readers and one writer work at once; switching is a no-op once done.

    Switching needs the file to itself, and SQLite answers "database is locked" at once,
    without its busy timeout, while another connection writes: the process that first opens a
    new file switches it while the others create tables. So a locked switch is tried again
    until the file is in WAL (often switched by the other process meanwhile) or `wait_s` is up.
    """
    deadline = time.monotonic() + wait_s
    while True:
        try:
            if str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
                conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(WAL_RETRY_S)
