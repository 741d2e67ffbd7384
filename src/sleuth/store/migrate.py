"""Schema migrations for Sleuth's SQLite files, safe when several processes open a new file.

A file's schema grows by appending a function to its list of steps; `PRAGMA user_version`
records how many have run. The version is read *inside* the write transaction that runs the
missing steps, so two processes opening a fresh file at once cannot both create the same table
(the second waits for the first's lock, then finds nothing left to do).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

Step = Callable[[sqlite3.Connection], None]


def user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, steps: Sequence[Step]) -> int:
    """Run the steps this file has not had, all in one transaction; returns the new version.

    `conn` must be in autocommit mode (`isolation_level=None`) so the transaction is ours."""
    if user_version(conn) >= len(steps):  # the common case: no write lock taken
        return user_version(conn)
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


def enable_wal(conn: sqlite3.Connection) -> None:
    """WAL lets readers and one writer work at once; switching is a no-op once done."""
    if str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
        conn.execute("PRAGMA journal_mode=WAL")
