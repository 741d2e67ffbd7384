"""Watched questions: each a question re-asked every so often, its runs a chain of saved
sessions, and a record of what each run found changed. SQLite under SLEUTH_HOME
(`watches.db`); `watches_pg.py` runs the same statements on PostgreSQL.

Running a watch starts with `claim`: one conditional update that leases a due watch to one
runner, so two `watch run --loop` processes, or any number of queue workers, never run the
same watch twice for one period (the database's write lock or row lock decides who wins).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..disk.sqlite import enable_wal, is_damaged, move_aside, recovering
from ..errors import NotFoundError, StoreError, UsageError
from .migrate import Step, migrate

WHAT = "watch store"


class Rows(Protocol):
    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Conn(Protocol):
    """sqlite3's connection, or PostgreSQL's through `postgres.Dialect`."""

    def execute(self, sql: str, parameters: Any = ..., /) -> Rows: ...


ID = re.compile(r"^[0-9a-f]{1,32}$")


@dataclass(frozen=True, slots=True)
class Watch:
    id: str
    question: str
    every_s: int
    options: dict[str, Any]  # run values by setting name ({"deep": 2})
    webhook: str | None
    secret: str  # the webhook's HMAC-SHA256 key
    created_at: str
    next_at: float  # epoch seconds when it is next due
    last_session: str | None = None  # the newest session of its chain
    runs: int = 0
    last_run_at: str | None = None
    last_change_at: str | None = None
    last_status: str | None = None  # first | changed | unchanged | failed
    org: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Everything but the secret."""
        return {
            "id": self.id,
            "question": self.question,
            "every_s": self.every_s,
            "options": self.options,
            "webhook": self.webhook,
            "created_at": self.created_at,
            "next_at": self.next_at,
            "last_session": self.last_session,
            "runs": self.runs,
            "last_run_at": self.last_run_at,
            "last_change_at": self.last_change_at,
            "last_status": self.last_status,
            "org": self.org,
        }


@dataclass(frozen=True, slots=True)
class WatchRun:
    watch_id: str
    session_id: str | None
    parent_id: str | None
    ran_at: str
    status: str  # first | changed | unchanged | failed
    changes: dict[str, Any] = field(default_factory=dict)
    delivery: str | None = None  # the webhook's outcome, None when none was sent

    def to_json(self) -> dict[str, Any]:
        return {
            "watch_id": self.watch_id,
            "session_id": self.session_id,
            "parent_id": self.parent_id,
            "ran_at": self.ran_at,
            "status": self.status,
            "changes": self.changes,
            "delivery": self.delivery,
        }


def _v1(conn: sqlite3.Connection) -> None:
    for statement in SCHEMA:
        conn.execute(statement)


SCHEMA = (
    """CREATE TABLE watches (
        id TEXT PRIMARY KEY, question TEXT NOT NULL, every_s INTEGER NOT NULL,
        options TEXT NOT NULL, webhook TEXT, secret TEXT NOT NULL, created_at TEXT NOT NULL,
        next_at DOUBLE PRECISION NOT NULL, lease_until DOUBLE PRECISION, last_session TEXT,
        runs INTEGER NOT NULL DEFAULT 0, last_run_at TEXT, last_change_at TEXT,
        last_status TEXT, org TEXT)""",
    """CREATE TABLE watch_runs (
        watch_id TEXT NOT NULL REFERENCES watches(id) ON DELETE CASCADE,
        n INTEGER NOT NULL, session_id TEXT, parent_id TEXT, ran_at TEXT NOT NULL,
        status TEXT NOT NULL, changes TEXT NOT NULL, delivery TEXT,
        PRIMARY KEY (watch_id, n))""",
    "CREATE INDEX watch_runs_session ON watch_runs (session_id)",
)
MIGRATIONS: tuple[Step, ...] = (_v1,)
_COLUMNS = (
    "id, question, every_s, options, webhook, secret, created_at, next_at, last_session, runs,"
    " last_run_at, last_change_at, last_status, org"
)


def watches_db_path(home: Path) -> Path:
    return home / "watches.db"


class WatchStore:
    """The watches in one SQLite file; every call opens its own connection."""

    def __init__(self, path: Path) -> None:
        self.path = path
        recovering(self.path, WHAT, self._prepare)

    def _prepare(self) -> None:
        with closing(self._open()) as conn:
            enable_wal(conn)
            migrate(conn, MIGRATIONS, "watches")

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        conn.execute("PRAGMA foreign_keys=ON")
        return conn

    @contextmanager
    def _tx(self) -> Iterator[Conn]:
        with self._guard(), closing(self._open()) as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    @contextmanager
    def _read(self) -> Iterator[Conn]:
        with self._guard(), closing(self._open()) as conn:
            yield conn

    @contextmanager
    def _guard(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            if is_damaged(exc):
                moved = move_aside(self.path, WHAT, str(exc))
                raise StoreError(f"{WHAT} {self.path} was damaged; moved it to {moved}") from exc
            raise StoreError(f"{WHAT}: {self.path}: {exc}") from exc
        except OSError as exc:
            raise StoreError(f"{WHAT}: {self.path}: {exc.strerror or exc}") from exc

    # -- the watches -------------------------------------------------------------------------

    def add(self, watch: Watch) -> Watch:
        with self._tx() as conn:
            conn.execute(
                f"INSERT INTO watches ({_COLUMNS}) VALUES ({', '.join('?' * 14)})",
                _row(watch),
            )
        return watch

    def get(self, ref: str) -> Watch:
        """The watch whose id is `ref` or starts with it (a unique prefix)."""
        with self._read() as conn:
            return _watch(
                conn.execute(
                    f"SELECT {_COLUMNS} FROM watches WHERE id = ?", (_resolve(conn, ref),)
                ).fetchone()
            )

    def all(self) -> list[Watch]:
        with self._read() as conn:
            rows = conn.execute(f"SELECT {_COLUMNS} FROM watches ORDER BY created_at, id")
            return [_watch(row) for row in rows.fetchall()]

    def rm(self, ref: str) -> Watch:
        with self._tx() as conn:
            watch_id = _resolve(conn, ref)
            row = conn.execute(f"SELECT {_COLUMNS} FROM watches WHERE id = ?", (watch_id,))
            found = _watch(row.fetchone())
            conn.execute("DELETE FROM watch_runs WHERE watch_id = ?", (watch_id,))
            conn.execute("DELETE FROM watches WHERE id = ?", (watch_id,))
        return found

    # -- running them ------------------------------------------------------------------------

    def due(self, now: float) -> list[str]:
        """Ids of the watches due at `now` that no runner holds."""
        with self._read() as conn:
            rows = conn.execute(
                "SELECT id FROM watches WHERE next_at <= ? AND (lease_until IS NULL"
                " OR lease_until < ?) ORDER BY next_at, id",
                (now, now),
            )
            return [str(r[0]) for r in rows.fetchall()]

    def claim(
        self, watch_id: str, now: float, lease_s: float, *, force: bool = False
    ) -> Watch | None:
        """Lease the watch to this runner until `now + lease_s` when it is due (or, with
        `force`, whenever no runner holds it); None when another runner won it or it is not
        due. One conditional UPDATE, so of two runners racing only one gets it."""
        due = "" if force else " AND next_at <= ?"
        params: tuple[Any, ...] = (now + lease_s, watch_id, now) + (() if force else (now,))
        with self._tx() as conn:
            cursor = conn.execute(
                "UPDATE watches SET lease_until = ? WHERE id = ? AND (lease_until IS NULL"
                f" OR lease_until < ?){due}",
                params,
            )
            if cursor.rowcount != 1:
                return None
            row = conn.execute(f"SELECT {_COLUMNS} FROM watches WHERE id = ?", (watch_id,))
            return _watch(row.fetchone())

    def finish(self, run: WatchRun, next_at: float) -> None:
        """Record a run, move the watch to `next_at` and release it."""
        changed = run.status in ("first", "changed")
        values = (next_at, run.ran_at, run.status, run.session_id, changed, run.ran_at,
                  run.watch_id)  # fmt: skip
        with self._tx() as conn:
            updated = conn.execute(
                "UPDATE watches SET lease_until = NULL, next_at = ?, runs = runs + 1,"
                " last_run_at = ?, last_status = ?,"
                " last_session = COALESCE(?, last_session),"
                " last_change_at = CASE WHEN ? THEN ? ELSE last_change_at END WHERE id = ?",
                values,
            )
            if updated.rowcount == 1:  # else it was removed while it ran: nothing to record
                _insert_run(conn, run)

    def release(self, watch_id: str) -> None:
        """Give a claimed watch back without a run (its runner stopped)."""
        with self._tx() as conn:
            conn.execute("UPDATE watches SET lease_until = NULL WHERE id = ?", (watch_id,))

    def runs(self, ref: str, limit: int = 50) -> list[WatchRun]:
        """A watch's runs, newest first."""
        with self._read() as conn:
            rows = conn.execute(
                "SELECT watch_id, session_id, parent_id, ran_at, status, changes, delivery"
                " FROM watch_runs WHERE watch_id = ? ORDER BY n DESC LIMIT ?",
                (_resolve(conn, ref), limit),
            )
            return [_run(row) for row in rows.fetchall()]

    def by_session(self) -> dict[str, WatchRun]:
        """Each watched run by its session id (what the history page marks)."""
        with self._read() as conn:
            rows = conn.execute(
                "SELECT watch_id, session_id, parent_id, ran_at, status, changes, delivery"
                " FROM watch_runs WHERE session_id IS NOT NULL"
            )
            return {str(r[1]): _run(r) for r in rows.fetchall()}


def _insert_run(conn: Conn, run: WatchRun) -> None:
    row = conn.execute(
        "SELECT COALESCE(MAX(n), 0) FROM watch_runs WHERE watch_id = ?", (run.watch_id,)
    ).fetchone()
    values = (run.watch_id, int(row[0]) + 1, run.session_id, run.parent_id, run.ran_at,
              run.status, json.dumps(run.changes, ensure_ascii=False), run.delivery)  # fmt: skip
    conn.execute("INSERT INTO watch_runs VALUES (?, ?, ?, ?, ?, ?, ?, ?)", values)


def _row(w: Watch) -> tuple[Any, ...]:
    return (
        w.id,
        w.question,
        w.every_s,
        json.dumps(w.options),
        w.webhook,
        w.secret,
        w.created_at,
        w.next_at,
        w.last_session,
        w.runs,
        w.last_run_at,
        w.last_change_at,
        w.last_status,
        w.org,
    )


def _watch(row: Any) -> Watch:
    return Watch(
        id=row[0],
        question=row[1],
        every_s=int(row[2]),
        options=json.loads(row[3]),
        webhook=row[4],
        secret=row[5],
        created_at=row[6],
        next_at=float(row[7]),
        last_session=row[8],
        runs=int(row[9]),
        last_run_at=row[10],
        last_change_at=row[11],
        last_status=row[12],
        org=row[13],
    )


def _run(row: Any) -> WatchRun:
    return WatchRun(row[0], row[1], row[2], row[3], row[4], json.loads(row[5]), row[6])


def _resolve(conn: Conn, ref: str) -> str:
    ref = ref.strip().lower()
    if not ID.match(ref):
        raise UsageError(f"{ref!r} is not a watch id (see `sleuth watch ls`)")
    rows = conn.execute("SELECT id FROM watches WHERE id LIKE ?", (ref + "%",)).fetchall()
    if not rows:
        raise NotFoundError(f"no watch {ref!r} (see `sleuth watch ls`)")
    if len(rows) > 1:
        raise UsageError(f"{ref!r} names {len(rows)} watches; give more of the id")
    return str(rows[0][0])
