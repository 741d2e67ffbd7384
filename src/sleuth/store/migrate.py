"""Schema migrations for Sleuth's SQLite files, safe when several processes open a new file.

A file's schema grows by appending a function to its list of steps; `PRAGMA user_version`
records how many have run. The version is read *inside* the write transaction that runs the
missing steps, so two processes opening a fresh file at once cannot both create the same table
(the second waits for the first's lock, then finds nothing left to do). A file at a version
beyond the steps this Sleuth knows was written by a newer one: it is refused (`SchemaTooNew`),
never written into.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

from ..errors import StoreError

Step = Callable[[sqlite3.Connection], None]


class SchemaTooNew(StoreError):
    """The database was migrated by a newer Sleuth than this one."""


def too_new(where: str, component: str, found: int, known: int) -> SchemaTooNew:
    return SchemaTooNew(
        f"{where} has the {component} schema at version {found}, newer than this Sleuth "
        f"knows ({known}); upgrade Sleuth on this machine"
    )


def user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, steps: Sequence[Step], component: str = "") -> int:
    """Run the steps this file has not had, all in one transaction; returns the new version.

    `conn` must be in autocommit mode (`isolation_level=None`) so the transaction is ours."""
    found = user_version(conn)
    if found > len(steps):
        raise too_new(_where(conn), component or "file's", found, len(steps))
    if found == len(steps):  # the common case: no write lock taken
        return found
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = user_version(conn)
        for step in steps[version:]:
            step(conn)
        if version < len(steps):
            conn.execute(f"PRAGMA user_version = {len(steps)}")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return len(steps)


def _where(conn: sqlite3.Connection) -> str:
    row = conn.execute("PRAGMA database_list").fetchone()
    return str(row[2]) if row and row[2] else "the database"
