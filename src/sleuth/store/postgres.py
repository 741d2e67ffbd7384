"""PostgreSQL for many processes and machines: connection pools, versioned schemas, errors.

`SLEUTH_DATABASE_URL=postgresql://…` moves the session store, the service store (keys, quotas,
usage, idempotency records, the result cache, runs in flight) and the page cache here, behind the
same ports as their SQLite files. psycopg 3 is imported only by this module and the stores built
on it, so a CLI without a database URL never pays for it.

Schemas are versioned per component (`sessions`, `service`, `pages`) in one table,
`sleuth_schema`: each component's steps are SQL appended to a list, and the number that ran is
its version. Steps run inside one transaction holding an advisory lock, so replicas starting at
once against a new database migrate it once. A database whose version is newer than the steps
this Sleuth knows is refused (`SchemaTooNew`): an older replica must not write into a schema it
does not understand.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg_pool import ConnectionPool

from ..errors import StoreError
from .migrate import too_new

SCHEMA_TABLE = "sleuth_schema"
MIGRATION_LOCK = 0x51E07D8  # pg_advisory_xact_lock key: one migrator at a time
CONNECT_TIMEOUT_S = 10


@dataclass(frozen=True, slots=True)
class SchemaState:
    component: str
    found: int  # the version the database is at (0: never migrated)
    known: int  # the version this Sleuth's steps reach

    @property
    def status(self) -> str:
        if self.found == self.known:
            return "current"
        return "behind" if self.found < self.known else "newer"


def redact(url: str) -> str:
    """`url` without its password, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def unreachable(url: str, exc: BaseException) -> StoreError:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return StoreError(f"database {redact(url)} cannot be used: {first}")


# -- pools ---------------------------------------------------------------------------------------

_pools: dict[str, ConnectionPool[psycopg.Connection[Any]]] = {}
_pools_lock = threading.Lock()


def pool(url: str) -> ConnectionPool[psycopg.Connection[Any]]:
    """This process's pool of blocking connections to `url` (sessions, the page cache, the
    CLI), opened on first use and shared by every store on that URL."""
    with _pools_lock:
        found = _pools.get(url)
        if found is None:
            # One direct connection first: a wrong URL or a server that is down fails here at
            # once, instead of after the pool's wait for a connection.
            psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_S).close()
            found = ConnectionPool(
                url,
                min_size=0,
                max_size=8,
                kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT_S},
                open=True,
                timeout=30,
                name="sleuth",
            )
            _pools[url] = found
        return found


@contextmanager
def connection(url: str) -> Iterator[psycopg.Connection[Any]]:
    """A pooled autocommit connection; a failure to reach the database is a StoreError."""
    try:
        with pool(url).connection() as conn:
            yield conn
    except psycopg.Error as exc:
        if isinstance(exc, psycopg.OperationalError | psycopg.errors.UndefinedTable):
            raise unreachable(url, exc) from exc
        raise StoreError(f"database: {str(exc).strip().splitlines()[0]}") from exc
    except Exception as exc:  # the pool's own timeout when the server is gone
        if type(exc).__module__.startswith("psycopg_pool"):
            raise unreachable(url, exc) from exc
        raise


# -- migrations ----------------------------------------------------------------------------------

Steps = Sequence[str]  # each step: one or more SQL statements separated by ';'


def _ensure_table(conn: psycopg.Connection[Any]) -> None:
    conn.execute(
        f"CREATE TABLE IF NOT EXISTS {SCHEMA_TABLE} (component TEXT PRIMARY KEY,"
        " version INTEGER NOT NULL, migrated_at TIMESTAMPTZ NOT NULL DEFAULT now())"
    )


def _found(conn: psycopg.Connection[Any], component: str) -> int:
    row = conn.execute(
        f"SELECT version FROM {SCHEMA_TABLE} WHERE component = %s", (component,)
    ).fetchone()
    return int(row[0]) if row else 0


def _table_exists(conn: psycopg.Connection[Any]) -> bool:
    row = conn.execute("SELECT to_regclass(%s)", (SCHEMA_TABLE,)).fetchone()
    return bool(row and row[0])


def versions(conn: psycopg.Connection[Any], known: Mapping[str, Steps]) -> list[SchemaState]:
    """Where each component's schema is, without changing anything."""
    exists = _table_exists(conn)
    return [
        SchemaState(name, _found(conn, name) if exists else 0, len(steps))
        for name, steps in known.items()
    ]


def migrate(conn: psycopg.Connection[Any], component: str, steps: Steps, url: str) -> int:
    """Run the steps `component` has not had, in one transaction under the migration lock;
    returns its version. Refuses a schema newer than `steps`."""
    if _table_exists(conn):
        found = _found(conn, component)
        if found == len(steps):  # the common case: no lock, no write
            return found
        if found > len(steps):
            raise too_new(f"database {redact(url)}", component, found, len(steps))
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        _ensure_table(conn)
        found = _found(conn, component)
        if found > len(steps):
            raise too_new(f"database {redact(url)}", component, found, len(steps))
        for step in steps[found:]:
            for statement in _statements(step):
                conn.execute(statement)
        if found < len(steps):
            conn.execute(
                f"INSERT INTO {SCHEMA_TABLE} (component, version) VALUES (%s, %s)"
                " ON CONFLICT (component) DO UPDATE SET version = excluded.version,"
                " migrated_at = now()",
                (component, len(steps)),
            )
    return len(steps)


def _statements(step: str) -> list[str]:
    return [s.strip() for s in step.split(";") if s.strip()]


# -- the SQLite dialect, spoken to PostgreSQL ----------------------------------------------------

_PARAM = re.compile(r"\?")


def to_postgres(sql: str) -> str:
    """A statement written for sqlite3, for psycopg: `?` placeholders become `%s`, `INSERT OR
    IGNORE` becomes `ON CONFLICT DO NOTHING`, and `LIKE` is `ILIKE` (SQLite's LIKE ignores ASCII
    case). Only the statements the stores write go through here; none has a literal `?` or
    `%`."""
    text = _PARAM.sub("%s", sql)
    if text.lstrip().upper().startswith("INSERT OR IGNORE"):
        text = text.replace("INSERT OR IGNORE", "INSERT", 1) + " ON CONFLICT DO NOTHING"
    return text.replace(" LIKE ", " ILIKE ")


class Dialect:
    """A psycopg connection that takes the sqlite3 dialect of `to_postgres` (`execute`,
    `executemany`), so store code written once for a DB-API connection runs on both."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.raw = conn

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> psycopg.Cursor[Any]:
        return self.raw.execute(to_postgres(sql), parameters)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]], /) -> psycopg.Cursor[Any]:
        cursor = self.raw.cursor()
        if rows:
            cursor.executemany(to_postgres(sql), rows)
        return cursor
