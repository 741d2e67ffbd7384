"""Which backend keeps the state: SQLite files under SLEUTH_HOME (the default, one machine) or
the PostgreSQL database of SLEUTH_DATABASE_URL (many replicas). Callers get the port; the
PostgreSQL modules, and psycopg with them, are imported only when a database URL is set."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..settings import database_url
from .service import ServiceStore
from .sessions import SessionStore, sessions_db_path
from .watches import WatchStore, watches_db_path


def session_store(home: Path, env: Mapping[str, str] | None = None) -> SessionStore:
    url = database_url(env)
    if url is None:
        return SessionStore(sessions_db_path(home))
    from .sessions_pg import PgSessionStore

    return PgSessionStore(url)


def service_store(
    home: Path, sessions: SessionStore | None = None, env: Mapping[str, str] | None = None
) -> ServiceStore:
    url = database_url(env)
    if url is None:
        from .service_sqlite import SqliteServiceStore

        return SqliteServiceStore(home, sessions)
    from .service_pg import PgServiceStore

    return PgServiceStore(url, sessions)


def watch_store(home: Path, env: Mapping[str, str] | None = None) -> WatchStore:
    url = database_url(env)
    if url is None:
        return WatchStore(watches_db_path(home))
    from .watches_pg import PgWatchStore

    return PgWatchStore(url)
