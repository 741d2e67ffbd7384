"""Watched questions in PostgreSQL (`SLEUTH_DATABASE_URL`): `WatchStore`'s statements on the
shared pool, so every CLI and every `sleuth worker` sees the same watches and a watch's lease
is taken by one of them only (the row lock orders racing claims; the loser's WHERE no longer
matches once the winner commits)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

from ..errors import StoreError
from . import postgres
from .watches import SCHEMA, WHAT, Conn, WatchStore

COMPONENT = "watches"
STEPS: tuple[str, ...] = (";\n".join(SCHEMA),)  # append only (see `postgres.migrate`)


class PgWatchStore(WatchStore):
    def __init__(self, url: str) -> None:
        self.url = url
        self.path = Path(postgres.redact(url))
        with postgres.connection(url) as conn:
            postgres.migrate(conn, COMPONENT, STEPS, url)

    @contextmanager
    def _tx(self) -> Iterator[Conn]:
        with self._guard(), postgres.connection(self.url) as conn, conn.transaction():
            yield postgres.Dialect(conn)

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
