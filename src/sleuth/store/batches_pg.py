"""Queued batches in PostgreSQL: each batch of an organization and each of its questions, with
the one record (a result or a failure) each question ends with.

The task queue (`procrastinate`) only says which question to work on next; this store is what
makes a question end exactly once. A question's record is written by a conditional update
(`WHERE state = 'queued'`), so a job that runs twice — its first worker was killed after
finishing, or two workers both retried a stalled job — leaves one record, and the second run
learns it lost (`finish` returns False) before it meters anything.

Every read takes the organization: another organization's batch is not found, never shown.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ..errors import StoreError

COMPONENT = "batches"
# Versioned steps, in the form of the other PostgreSQL schemas (one entry per version).
STEPS: tuple[str, ...] = (
    """
    CREATE TABLE IF NOT EXISTS sleuth_batches (
      id TEXT PRIMARY KEY,
      org TEXT NOT NULL,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      total INTEGER NOT NULL,
      options JSONB NOT NULL DEFAULT '{}'::jsonb
    );
    CREATE INDEX IF NOT EXISTS sleuth_batches_by_org ON sleuth_batches (org, created_at);
    CREATE TABLE IF NOT EXISTS sleuth_batch_items (
      batch_id TEXT NOT NULL REFERENCES sleuth_batches (id) ON DELETE CASCADE,
      n INTEGER NOT NULL,
      item_id TEXT NOT NULL,
      question TEXT,
      item_values JSONB NOT NULL DEFAULT '{}'::jsonb,
      state TEXT NOT NULL DEFAULT 'queued',
      record JSONB,
      attempts INTEGER NOT NULL DEFAULT 0,
      finished_at TIMESTAMPTZ,
      PRIMARY KEY (batch_id, n)
    );
    CREATE INDEX IF NOT EXISTS sleuth_batch_items_by_state ON sleuth_batch_items (batch_id, state)
    """,
)
LOCK_KEY = 0x51E07DB  # pg_advisory_xact_lock: one process creates the tables


@dataclass(frozen=True, slots=True)
class NewItem:
    """A question to enqueue (`record` None), or a line already failed (its record)."""

    n: int
    item_id: str
    question: str | None
    values: Mapping[str, Any]
    record: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Claimed:
    """A question a worker is about to research, with its batch's options."""

    batch_id: str
    n: int
    org: str
    item_id: str
    question: str
    values: Mapping[str, Any]
    options: Mapping[str, Any]
    attempts: int


@dataclass(frozen=True, slots=True)
class Progress:
    id: str
    org: str
    created_at: str
    total: int
    done: int
    failed: int

    @property
    def queued(self) -> int:
        return self.total - self.done - self.failed

    @property
    def finished(self) -> bool:
        return self.queued == 0

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "created_at": self.created_at,
            "total": self.total,
            "done": self.done,
            "failed": self.failed,
            "queued": self.queued,
            "finished": self.finished,
        }


def new_batch_id() -> str:
    return "b_" + secrets.token_hex(8)


class BatchStore:
    """Batches on an async connection pool to `url`."""

    def __init__(self, url: str, *, max_size: int = 4) -> None:
        from psycopg_pool import AsyncConnectionPool

        self.url = url
        self._pool = AsyncConnectionPool(
            url, min_size=0, max_size=max_size, open=False, kwargs={"autocommit": True}
        )
        self._opened = False

    async def open(self) -> BatchStore:
        if not self._opened:
            await self._pool.open()
            self._opened = True
        return self

    async def aclose(self) -> None:
        if self._opened:
            await self._pool.close()
            self._opened = False

    async def migrate(self) -> None:
        """Create the tables when missing (each step is idempotent), once across processes."""
        async with self._pool.connection() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
            for step in STEPS:
                for statement in (s.strip() for s in step.split(";")):
                    if statement:
                        await conn.execute(statement)

    async def create(self, org: str, items: Sequence[NewItem], options: Mapping[str, Any]) -> str:
        batch_id, now = new_batch_id(), datetime.now(UTC)
        rows = [
            (
                batch_id,
                item.n,
                item.item_id,
                item.question,
                _json(item.values),
                "failed" if item.record is not None else "queued",
                None if item.record is None else _json(item.record),
            )
            for item in items
        ]
        async with self._pool.connection() as conn, conn.transaction():
            await conn.execute(
                "INSERT INTO sleuth_batches (id, org, total, options) VALUES (%s, %s, %s, %s)",
                (batch_id, org, len(items), _json(options)),
            )
            async with conn.cursor() as cursor:
                await cursor.executemany(
                    "INSERT INTO sleuth_batch_items (batch_id, n, item_id, question,"
                    " item_values, state, record, finished_at) VALUES (%s, %s, %s, %s, %s, %s,"
                    " %s, %s)",
                    [(*row, None if row[6] is None else now) for row in rows],
                )
        return batch_id

    async def claim(self, batch_id: str, n: int) -> Claimed | None:
        """The question, counted as one more attempt, unless it already has its record."""
        async with self._pool.connection() as conn:
            cursor = await conn.execute(
                "UPDATE sleuth_batch_items i SET attempts = attempts + 1 FROM sleuth_batches b"
                " WHERE i.batch_id = %s AND i.n = %s AND i.state = 'queued' AND b.id = i.batch_id"
                " RETURNING b.org, i.item_id, i.question, i.item_values, b.options, i.attempts",
                (batch_id, n),
            )
            row = await cursor.fetchone()
        if row is None:
            return None
        org, item_id, question, values, options, attempts = row
        return Claimed(batch_id, n, org, item_id, question, values, options, attempts)

    async def finish(self, batch_id: str, n: int, record: Mapping[str, Any]) -> bool:
        """Write the question's one record; False when it already had one (nothing written)."""
        state = "failed" if "error" in record else "done"
        async with self._pool.connection() as conn:
            cursor = await conn.execute(
                "UPDATE sleuth_batch_items SET state = %s, record = %s, finished_at = now()"
                " WHERE batch_id = %s AND n = %s AND state = 'queued'",
                (state, _json(record), batch_id, n),
            )
            return cursor.rowcount == 1

    async def progress(self, org: str, batch_id: str) -> Progress | None:
        async with self._pool.connection() as conn:
            cursor = await conn.execute(
                "SELECT b.id, b.org, b.created_at, b.total,"
                " count(*) FILTER (WHERE i.state = 'done'),"
                " count(*) FILTER (WHERE i.state = 'failed')"
                " FROM sleuth_batches b LEFT JOIN sleuth_batch_items i ON i.batch_id = b.id"
                " WHERE b.id = %s AND b.org = %s GROUP BY b.id",
                (batch_id, org),
            )
            row = await cursor.fetchone()
        if row is None:
            return None
        ident, owner, created, total, done, failed = row
        return Progress(ident, owner, created.isoformat(), total, done, failed)

    async def records(
        self, org: str, batch_id: str, *, after: int = -1, chunk: int = 200
    ) -> AsyncIterator[tuple[int, dict[str, Any]]]:
        """The finished questions' records in line order (n > `after`), read in chunks."""
        while True:
            async with self._pool.connection() as conn:
                cursor = await conn.execute(
                    "SELECT i.n, i.record FROM sleuth_batch_items i JOIN sleuth_batches b"
                    " ON b.id = i.batch_id WHERE i.batch_id = %s AND b.org = %s"
                    " AND i.state <> 'queued' AND i.n > %s ORDER BY i.n LIMIT %s",
                    (batch_id, org, after, chunk),
                )
                rows = await cursor.fetchall()
            for n, record in rows:
                yield n, record
                after = n
            if len(rows) < chunk:
                return

    async def queued(self, batch_id: str) -> list[int]:
        """Line numbers still without a record (to re-enqueue a batch whose jobs were lost)."""
        async with self._pool.connection() as conn:
            cursor = await conn.execute(
                "SELECT n FROM sleuth_batch_items WHERE batch_id = %s AND state = 'queued'"
                " ORDER BY n",
                (batch_id,),
            )
            return [row[0] for row in await cursor.fetchall()]


def _json(value: Mapping[str, Any]) -> Any:
    from psycopg.types.json import Jsonb

    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"a batch record could not be stored: {exc}") from exc
    # jsonb holds no NUL character, which a page's text may carry.
    text = text.replace("\\u0000", "\\ufffd")
    return Jsonb(value, dumps=lambda _: text)
