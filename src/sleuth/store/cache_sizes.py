"""How big and how old each cache Sleuth keeps is: the page cache (`pages`) and the server's
result cache (`result_cache`), in SQLite files or in PostgreSQL. Read-only: measuring never
creates a file, a table or an entry."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from ..errors import StoreError


@dataclass(frozen=True, slots=True)
class CacheSize:
    entries: int = 0
    bytes: int = 0  # of the stored entries
    oldest: float | None = None  # when the oldest entry was stored (epoch seconds)
    newest: float | None = None
    created: bool = True  # False: the file or table does not exist yet


# Each cache: its table, the column holding an entry, the column saying when it was stored.
CACHES: dict[str, tuple[str, str, str]] = {
    "pages": ("pages", "page", "stored_at"),
    "results": ("result_cache", "body", "created_at"),
}


def _query(cache: str, size: str) -> str:
    """The measuring query; `size` is the dialect's byte length of `{body}`."""
    table, body, stored = CACHES[cache]
    length = size.format(body=body)
    return f"SELECT count(*), coalesce(sum({length}), 0), min({stored}), max({stored}) FROM {table}"


def sqlite_size(cache: str, db: Path) -> CacheSize:
    """The cache `cache` in the SQLite file `db`, opened read-only."""
    if not db.is_file():
        return CacheSize(created=False)
    try:
        with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
            table = CACHES[cache][0]
            found = conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone()
            if found is None:
                return CacheSize(created=False)
            row = conn.execute(_query(cache, "length(CAST({body} AS BLOB))")).fetchone()
    except sqlite3.Error as exc:
        raise StoreError(f"{db}: {exc}") from exc
    return CacheSize(int(row[0]), int(row[1]), row[2], row[3])


def pg_size(cache: str, url: str) -> CacheSize:
    """The cache `cache` in the PostgreSQL database of `url`."""
    from . import postgres

    table = CACHES[cache][0]
    with postgres.connection(url) as conn:
        found = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (table,)).fetchone()
        if found is None or not found[0]:
            return CacheSize(created=False)
        row = conn.execute(_query(cache, "octet_length({body})")).fetchone()
    assert row is not None  # an aggregate always returns one row
    return CacheSize(int(row[0]), int(row[1]), row[2], row[3])
