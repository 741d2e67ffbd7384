"""Which backend keeps the state: SQLite files under SLEUTH_HOME (the default, one machine) or
the PostgreSQL database of a database URL (many replicas). The application decides with its
one parsed URL; callers get the port; the PostgreSQL modules, and psycopg with them, are
imported only when a URL is given."""

from __future__ import annotations

from pathlib import Path

from .service import ServiceStore
from .sessions import SessionStore, sessions_db_path
from .watches import WatchStore, watches_db_path


def session_store(home: Path, url: str | None = None) -> SessionStore:
    if url is None:
        return SessionStore(sessions_db_path(home))
    from .sessions_pg import PgSessionStore

    return PgSessionStore(url)


def service_store(
    home: Path, sessions: SessionStore | None = None, url: str | None = None
) -> ServiceStore:
    if url is None:
        from .service_sqlite import SqliteServiceStore

        return SqliteServiceStore(home, sessions)
    from .service_pg import PgServiceStore

    return PgServiceStore(url, sessions)


def watch_store(home: Path, url: str | None = None) -> WatchStore:
    if url is None:
        return WatchStore(watches_db_path(home))
    from .watches_pg import PgWatchStore

    return PgWatchStore(url)
