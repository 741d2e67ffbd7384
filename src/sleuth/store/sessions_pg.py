"""Saved sessions in PostgreSQL (`SLEUTH_DATABASE_URL`): the SQLite store's queries, on a pool.

`PgSessionStore` is `SessionStore` with its connections swapped: the same statements run through
`postgres.Dialect`, each write in one transaction. Ids and tags compare byte-wise (`COLLATE "C"`)
as in SQLite, so an id prefix finds the same sessions on both backends.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

from ..errors import StoreError
from . import postgres
from .records import SessionSummary
from .sessions import WHAT, Conn, SessionStore

COMPONENT = "sessions"

# Append only: a database at version N runs STEPS[N:] (see `postgres.migrate`).
STEPS: tuple[str, ...] = (
    """CREATE TABLE sessions (
        id TEXT COLLATE "C" PRIMARY KEY,
        created_at TEXT COLLATE "C" NOT NULL,
        question TEXT NOT NULL,
        parent_id TEXT COLLATE "C",
        models TEXT NOT NULL,
        source_count INTEGER NOT NULL,
        rounds INTEGER NOT NULL,
        cost_usd DOUBLE PRECISION,
        by_model TEXT NOT NULL,
        body TEXT NOT NULL,
        org TEXT
    );
    CREATE INDEX sessions_created ON sessions (created_at);
    CREATE INDEX sessions_org ON sessions (org, created_at);
    CREATE TABLE session_tags (
        session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        tag TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (session_id, tag)
    );
    CREATE INDEX session_tags_tag ON session_tags (tag)""",
    """CREATE TABLE session_revisions (
        session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        note TEXT NOT NULL,
        answer TEXT NOT NULL,
        verification TEXT NOT NULL,
        PRIMARY KEY (session_id, number)
    )""",
    """ALTER TABLE sessions ADD COLUMN confidence TEXT;
    ALTER TABLE sessions ADD COLUMN stage TEXT;
    UPDATE sessions SET confidence = body::jsonb #>> '{result,confidence}',
        stage = body::jsonb #>> '{options,steering,stage}'""",
)


class PgSessionStore(SessionStore):
    """The saved sessions in a PostgreSQL database shared by every replica and CLI."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.path = Path(postgres.redact(url))
        self._count_changes()
        with postgres.connection(url) as conn:
            postgres.migrate(conn, COMPONENT, STEPS, url)

    @property
    def where(self) -> str:
        return postgres.redact(self.url)

    @contextmanager
    def _tx(self, saved: SessionSummary | None = None) -> Iterator[Conn]:
        with self._guard(), postgres.connection(self.url) as conn, conn.transaction():
            yield postgres.Dialect(conn)
        self._committed(saved)

    @contextmanager
    def _read(self) -> Iterator[Conn]:
        with self._guard(), postgres.connection(self.url) as conn:
            yield postgres.Dialect(conn)

    @contextmanager
    def _guard(self) -> Iterator[None]:
        try:
            yield
        except psycopg.Error as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise StoreError(f"{WHAT}: {postgres.redact(self.url)}: {first}") from exc
