"""The page cache: pages read in the last hour are not fetched again.

One SQLite file under SLEUTH_HOME in WAL mode, so several Sleuth processes (a CLI run next to a
server) can share it. Each call opens its own short connection: calls may come from any thread,
and nothing is held open between runs.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import asdict, replace
from pathlib import Path
from typing import TypeVar

from ..disk.sqlite import enable_wal, is_damaged, log, move_aside, recovering
from ..errors import StoreError
from ..ports import Fetcher, PageCache
from ..types import Page
from .page_json import page_from_json

T = TypeVar("T")
WHAT = "page cache"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS pages (
    url TEXT PRIMARY KEY,
    stored_at REAL NOT NULL,
    page TEXT NOT NULL
)
"""


class SqlitePageCache:
    """Implements `sleuth.ports.PageCache`. Entries older than `ttl_s` are misses.

    The cache only saves time, so it never costs a run: when its file cannot be used (not a
    regular file, an unwritable SLEUTH_HOME, a disk error) it says so once on the `sleuth`
    logger and turns itself off; a damaged file is moved aside and a new one started.
    """

    def __init__(
        self, path: Path, ttl_s: float = 3600.0, clock: Callable[[], float] = time.time
    ) -> None:
        self.path = path
        self.ttl_s = ttl_s
        self._clock = clock
        self.unavailable: str | None = None  # why the cache is off, once it is
        self._use(lambda: recovering(path, WHAT, self._prepare), None)

    def _prepare(self) -> None:
        with self._connect() as db:
            enable_wal(db)  # waits out another process creating the same file
            db.execute(_SCHEMA)

    def get(self, url: str) -> Page | None:
        row = self._use(lambda: self._row(url), None)
        if row is None or self._clock() - float(row[0]) > self.ttl_s:
            return None
        try:
            return page_from_json(row[1])
        except (ValueError, TypeError):  # a garbled entry is a miss
            return None

    def put(self, page: Page) -> None:
        record = json.dumps(asdict(replace(page, from_cache=False)))

        def write() -> None:
            with self._connect() as db:
                db.execute(
                    "INSERT OR REPLACE INTO pages (url, stored_at, page) VALUES (?, ?, ?)",
                    (page.url, self._clock(), record),
                )

        self._use(write, None)

    def prune(self) -> int:
        """Delete expired entries; returns how many went."""

        def delete() -> int:
            with self._connect() as db:
                cutoff = self._clock() - self.ttl_s
                return db.execute("DELETE FROM pages WHERE stored_at < ?", (cutoff,)).rowcount

        return self._use(delete, 0)

    def _row(self, url: str) -> tuple[float, str] | None:
        with self._connect() as db:
            row = db.execute("SELECT stored_at, page FROM pages WHERE url = ?", (url,)).fetchone()
        return None if row is None else (float(row[0]), str(row[1]))

    def _use(self, action: Callable[[], T], fallback: T) -> T:
        """`action()`, or `fallback` once the cache is off; the first failure turns it off."""
        if self.unavailable is not None:
            return fallback
        try:
            return action()
        except sqlite3.Error as exc:
            if is_damaged(exc):
                move_aside(self.path, WHAT, str(exc))
            self._off(f"{self.path}: {exc}")
        except (StoreError, OSError) as exc:
            self._off(str(exc))
        return fallback

    def _off(self, why: str) -> None:
        self.unavailable = why
        log.warning("page cache unavailable (%s); pages are read without it", why)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        with closing(sqlite3.connect(self.path, timeout=10.0)) as db, db:
            db.execute("PRAGMA busy_timeout = 10000")
            yield db


class CachedFetcher:
    """Implements `Fetcher`: a fresh cached page is returned with `from_cache=True`.

    `refresh=True` is `--no-cache`: the cache is not read, but what is fetched is still stored
    so the next run benefits.
    """

    def __init__(self, inner: Fetcher, cache: PageCache, *, refresh: bool = False) -> None:
        self._inner = inner
        self._cache = cache
        self._refresh = refresh

    async def fetch(self, url: str) -> Page:
        if not self._refresh:
            hit = await asyncio.to_thread(self._cache.get, url)
            if hit is not None:
                return replace(hit, from_cache=True)
        page = await self._inner.fetch(url)
        await asyncio.to_thread(self._cache.put, page)
        return page

    async def aclose(self) -> None:
        await self._inner.aclose()


def default_cache_path(home: Path) -> Path:
    return home / "cache.db"
