"""The page cache in PostgreSQL (`SLEUTH_DATABASE_URL`): pages one replica read, every replica
and CLI on the database reuses for the cache's time to live.

Like the SQLite cache it only saves time, so it never costs a run: the first failure to use the
database says so once on the `sleuth` logger and turns the cache off for this process.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, replace
from typing import TypeVar

import psycopg

from ..disk.sqlite import log
from ..errors import StoreError
from ..fetch.page_json import page_from_json
from ..types import Page
from . import postgres

T = TypeVar("T")
COMPONENT = "pages"

# Append only: a database at version N runs STEPS[N:] (see `postgres.migrate`).
STEPS: tuple[str, ...] = (
    """CREATE TABLE pages (url TEXT PRIMARY KEY, stored_at DOUBLE PRECISION NOT NULL,
        page TEXT NOT NULL);
    CREATE INDEX pages_stored ON pages (stored_at)""",
)


class PgPageCache:
    """Implements `sleuth.ports.PageCache`. Entries older than `ttl_s` are misses."""

    def __init__(
        self, url: str, ttl_s: float = 3600.0, clock: Callable[[], float] = time.time
    ) -> None:
        self.url = url
        self.ttl_s = ttl_s
        self._clock = clock
        self.unavailable: str | None = None
        self._use(self._prepare, None)

    def _prepare(self) -> None:
        with postgres.connection(self.url) as conn:
            postgres.migrate(conn, COMPONENT, STEPS, self.url)

    def get(self, url: str) -> Page | None:
        row = self._use(lambda: self._row(url), None)
        if row is None or self._clock() - row[0] > self.ttl_s:
            return None
        try:
            return page_from_json(row[1])
        except (ValueError, TypeError):  # a garbled entry is a miss
            return None

    def put(self, page: Page) -> None:
        record = json.dumps(asdict(replace(page, from_cache=False)))

        def write() -> None:
            with postgres.connection(self.url) as conn:
                conn.execute(
                    "INSERT INTO pages (url, stored_at, page) VALUES (%s, %s, %s)"
                    " ON CONFLICT (url) DO UPDATE SET stored_at = excluded.stored_at,"
                    " page = excluded.page",
                    (page.url, self._clock(), record),
                )

        self._use(write, None)

    def prune(self) -> int:
        """Delete expired entries; returns how many went."""

        def delete() -> int:
            with postgres.connection(self.url) as conn:
                cutoff = self._clock() - self.ttl_s
                return conn.execute("DELETE FROM pages WHERE stored_at < %s", (cutoff,)).rowcount

        return self._use(delete, 0)

    def _row(self, url: str) -> tuple[float, str] | None:
        with postgres.connection(self.url) as conn:
            row = conn.execute(
                "SELECT stored_at, page FROM pages WHERE url = %s", (url,)
            ).fetchone()
        return None if row is None else (float(row[0]), str(row[1]))

    def _use(self, action: Callable[[], T], fallback: T) -> T:
        """`action()`, or `fallback` once the cache is off; the first failure turns it off."""
        if self.unavailable is not None:
            return fallback
        try:
            return action()
        except (StoreError, psycopg.Error) as exc:
            self.unavailable = str(exc).strip().splitlines()[0] if str(exc).strip() else "error"
            log.warning("page cache unavailable (%s); pages are read without it", self.unavailable)
        return fallback
