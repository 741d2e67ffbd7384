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
from dataclasses import asdict, fields, replace
from pathlib import Path

from ..ports import Fetcher, PageCache
from ..types import Page

_SCHEMA = """
CREATE TABLE IF NOT EXISTS pages (
    url TEXT PRIMARY KEY,
    stored_at REAL NOT NULL,
    page TEXT NOT NULL
)
"""


class SqlitePageCache:
    """Implements `sleuth.ports.PageCache`. Entries older than `ttl_s` are misses."""

    def __init__(
        self, path: Path, ttl_s: float = 3600.0, clock: Callable[[], float] = time.time
    ) -> None:
        self.path = path
        self.ttl_s = ttl_s
        self._clock = clock
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(_SCHEMA)

    def get(self, url: str) -> Page | None:
        with self._connect() as db:
            row = db.execute("SELECT stored_at, page FROM pages WHERE url = ?", (url,)).fetchone()
        if row is None or self._clock() - float(row[0]) > self.ttl_s:
            return None
        return _page_from_json(row[1])

    def put(self, page: Page) -> None:
        record = json.dumps(asdict(replace(page, from_cache=False)))
        with self._connect() as db:
            db.execute(
                "INSERT OR REPLACE INTO pages (url, stored_at, page) VALUES (?, ?, ?)",
                (page.url, self._clock(), record),
            )

    def prune(self) -> int:
        """Delete expired entries; returns how many went."""
        with self._connect() as db:
            cursor = db.execute(
                "DELETE FROM pages WHERE stored_at < ?", (self._clock() - self.ttl_s,)
            )
            return cursor.rowcount

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


def _page_from_json(text: str) -> Page:
    # Ignore fields a newer or older Sleuth wrote: a cache entry must never break a run.
    known = {f.name for f in fields(Page)}
    return Page(**{k: v for k, v in json.loads(text).items() if k in known})


def default_cache_path(home: Path) -> Path:
    return home / "cache.db"
