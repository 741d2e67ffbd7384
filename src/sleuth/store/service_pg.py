"""`ServiceStore` in PostgreSQL (`SLEUTH_DATABASE_URL`): one database for any number of replicas.

Each decision two replicas could race on is made by the database in one transaction:

- admitting a run: the organization's admissions queue on a transaction-scoped advisory lock
  (`pg_advisory_xact_lock`), so counting its running runs and month's usage and reserving a slot
  is one step across every replica; metering is an `INSERT … ON CONFLICT DO UPDATE SET n = n + x`;
- an idempotency key: `INSERT … ON CONFLICT DO NOTHING` (the unique key decides who is first; a
  second claimant waits for the first's commit and then reads its row);
- a run in flight: one conditional upsert that takes the claim only when it is free, ours, or
  its lease ran out (the owner stopped renewing it: its process died);
- the per-minute rate limit: one upsert returning the window's new count.

psycopg 3's async pool; connections are autocommit except inside `_tx`.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from ..errors import StoreError
from . import postgres
from .schemas import KNOWN
from .service import (
    ONE_SEARCH,
    Admission,
    Admitted,
    ApiKey,
    Cached,
    Idempotency,
    Org,
    OrgModel,
    Refused,
    Spent,
    UsageDay,
    UsageReport,
    allowance,
    check_scopes,
    hash_secret,
    new_secret,
    usage_day,
)
from .service_schema import ORG_MODEL_COLUMNS, key_row, moment, org_model_row, org_model_values
from .sessions import SessionStore
from .sessions_pg import PgSessionStore

DAY_S = 86400.0

Conn = psycopg.AsyncConnection[Any]


def _iso(now: float) -> str:
    return moment(now).isoformat(timespec="seconds").replace("+00:00", "Z")


class PgServiceStore:
    def __init__(self, url: str, sessions: SessionStore | None = None) -> None:
        self.url = url
        # This process as the owner of its claims: on PostgreSQL a claim is a lease the owner
        # renews, so a dead process's claims lapse with their leases.
        self.node = uuid.uuid4().hex
        with postgres.connection(url) as conn:  # the server's whole database, not only ours
            for component, steps in KNOWN.items():
                postgres.migrate(conn, component, steps, url)
        self._sessions = sessions or PgSessionStore(url)
        self._pool: AsyncConnectionPool[Conn] | None = None
        self._opening = asyncio.Lock()

    @property
    def sessions(self) -> SessionStore:
        return self._sessions

    async def _get_pool(self) -> AsyncConnectionPool[Conn]:
        async with self._opening:
            if self._pool is None:
                pool: AsyncConnectionPool[Conn] = AsyncConnectionPool(
                    self.url,
                    min_size=1,
                    max_size=16,
                    kwargs={"autocommit": True, "connect_timeout": postgres.CONNECT_TIMEOUT_S},
                    open=False,
                    timeout=15,
                    name="sleuth-service",
                )
                await pool.open()
                self._pool = pool
            return self._pool

    @asynccontextmanager
    async def _conn(self) -> AsyncIterator[Conn]:
        try:
            pool = await self._get_pool()
            async with pool.connection() as conn:
                yield conn
        except psycopg.Error as exc:
            raise postgres.unreachable(self.url, exc) from exc
        except Exception as exc:  # the pool's timeout: no connection could be made in time
            if type(exc).__module__.startswith("psycopg_pool"):
                raise postgres.unreachable(self.url, exc) from exc
            raise

    @asynccontextmanager
    async def _tx(self) -> AsyncIterator[Conn]:
        async with self._conn() as conn, conn.transaction():
            yield conn

    async def aclose(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await pool.close()

    async def ping(self) -> None:
        """Raise a StoreError when the database cannot be reached or a schema is not the one
        this Sleuth writes (a replica must not take traffic against either)."""
        for state in await self.schema():
            if state.status != "current":
                raise StoreError(
                    f"the {state.component} schema is at version {state.found}, this Sleuth "
                    f"writes {state.known} ({state.status}: "
                    + ("run `sleuth db migrate`)" if state.status == "behind" else "upgrade)")
                )

    async def schema(self) -> list[postgres.SchemaState]:
        """Where each component's schema is, against what this Sleuth knows."""
        async with self._conn() as conn:
            cur = await conn.execute("SELECT to_regclass('sleuth_schema')")
            exists = await cur.fetchone()
            rows: list[Any] = []
            if exists and exists[0]:
                cur = await conn.execute("SELECT component, version FROM sleuth_schema")
                rows = await cur.fetchall()
        found = {name: int(version) for name, version in rows}
        return [postgres.SchemaState(n, found.get(n, 0), len(s)) for n, s in KNOWN.items()]

    # -- organizations and keys ----------------------------------------------------------------

    async def create_key(
        self, org: str, scopes: tuple[str, ...], *, now: float, quotas: Mapping[str, int | None]
    ) -> tuple[ApiKey, str]:
        scopes = check_scopes(scopes)
        key_id, secret = new_secret()
        async with self._tx() as conn:
            await conn.execute(
                "INSERT INTO orgs (name, plan, created_at) VALUES (%s, 'self-hosted', %s)"
                " ON CONFLICT DO NOTHING",
                (org, _iso(now)),
            )
            for meter, column in (("searches", "quota_searches"), ("pages", "quota_pages")):
                if quotas.get(meter) is not None:
                    await conn.execute(
                        f"UPDATE orgs SET {column} = %s WHERE name = %s", (quotas[meter], org)
                    )
            await conn.execute(
                "INSERT INTO api_keys (id, org, hash, scopes, created_at)"
                " VALUES (%s, %s, %s, %s, %s)",
                (key_id, org, hash_secret(secret), json.dumps(list(scopes)), _iso(now)),
            )
        return ApiKey(key_id, org, scopes, _iso(now)), secret

    async def key_for(self, secret: str) -> ApiKey | None:
        async with self._conn() as conn:
            cur = await conn.execute(
                "SELECT id, org, scopes, created_at, revoked_at FROM api_keys"
                " WHERE hash = %s AND revoked_at IS NULL",
                (hash_secret(secret),),
            )
            row = await cur.fetchone()
        return key_row(row) if row else None

    async def keys(self, org: str | None = None) -> list[ApiKey]:
        sql = "SELECT id, org, scopes, created_at, revoked_at FROM api_keys"
        args: tuple[str, ...] = ()
        if org is not None:
            sql, args = sql + " WHERE org = %s", (org,)
        async with self._conn() as conn:
            cur = await conn.execute(sql + " ORDER BY org, created_at, id", args)
            rows = await cur.fetchall()
        return [key_row(r) for r in rows]

    async def revoke_key(self, key_id: str, *, now: float) -> ApiKey | None:
        async with self._tx() as conn:
            await conn.execute(
                "UPDATE api_keys SET revoked_at = %s WHERE id = %s AND revoked_at IS NULL",
                (_iso(now), key_id),
            )
            cur = await conn.execute(
                "SELECT id, org, scopes, created_at, revoked_at FROM api_keys WHERE id = %s",
                (key_id,),
            )
            row = await cur.fetchone()
        return key_row(row) if row else None

    async def has_keys(self) -> bool:
        async with self._conn() as conn:
            cur = await conn.execute("SELECT 1 FROM api_keys WHERE revoked_at IS NULL LIMIT 1")
            return await cur.fetchone() is not None

    async def org(self, name: str) -> Org | None:
        async with self._conn() as conn:
            return await _org_row(conn, name)

    async def set_org_model(self, model: OrgModel, *, now: float) -> None:
        async with self._tx() as conn:
            await conn.execute(
                "INSERT INTO orgs (name, plan, created_at) VALUES (%s, 'self-hosted', %s)"
                " ON CONFLICT DO NOTHING",
                (model.org, _iso(now)),
            )
            columns = ORG_MODEL_COLUMNS.split(", ")
            updates = ", ".join(f"{c} = excluded.{c}" for c in columns[1:])
            await conn.execute(
                f"INSERT INTO org_models ({ORG_MODEL_COLUMNS}) VALUES"
                f" ({', '.join(['%s'] * len(columns))}) ON CONFLICT (org) DO UPDATE SET {updates}",
                org_model_values(model, _iso(now)),
            )

    async def org_model(self, org: str) -> OrgModel | None:
        async with self._conn() as conn:
            cur = await conn.execute(
                f"SELECT {ORG_MODEL_COLUMNS} FROM org_models WHERE org = %s", (org,)
            )
            row = await cur.fetchone()
        return org_model_row(row) if row else None

    async def org_models(self) -> list[OrgModel]:
        async with self._conn() as conn:
            cur = await conn.execute(f"SELECT {ORG_MODEL_COLUMNS} FROM org_models ORDER BY org")
            rows = await cur.fetchall()
        return [org_model_row(r) for r in rows]

    async def clear_org_model(self, org: str) -> bool:
        async with self._conn() as conn:
            cur = await conn.execute("DELETE FROM org_models WHERE org = %s", (org,))
            return cur.rowcount > 0

    # -- quotas, concurrency and usage ------------------------------------------------------------

    async def admit(
        self,
        org: str,
        *,
        now: float,
        lease_s: float,
        max_running: int | None,
        want: Spent = ONE_SEARCH,
        run: bool = True,
    ) -> Admission:
        async with self._tx() as conn:
            # One admission per organization at a time, across every replica, until commit.
            await conn.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", ("sleuth.admit:" + org,)
            )
            await conn.execute(
                "DELETE FROM reservations WHERE org = %s AND expires_at <= %s", (org, now)
            )
            cur = await conn.execute(
                "SELECT count(*) FILTER (WHERE run), coalesce(sum(searches), 0),"
                " coalesce(sum(pages), 0) FROM reservations WHERE org = %s",
                (org,),
            )
            running, searches, pages = await cur.fetchone() or (0, 0, 0)
            if run and max_running is not None and running >= max_running:
                return Refused("busy", retry_after=1.0)
            used = Spent(*await _month_used(conn, org, now))
            held = Spent(int(searches), int(pages))
            allowed = allowance(await _org_row(conn, org), used, held, want)
            if isinstance(allowed, Refused):
                return allowed
            reservation = secrets.token_hex(8)
            await conn.execute(
                "INSERT INTO reservations (id, org, expires_at, run, searches, pages)"
                " VALUES (%s, %s, %s, %s, %s, %s)",
                (reservation, org, now + lease_s, run, allowed.searches or 0,
                 allowed.pages_read or 0),
            )  # fmt: skip
        return Admitted(reservation, allowed)

    async def renew(self, reservation: str, *, now: float, lease_s: float) -> None:
        async with self._conn() as conn:
            await conn.execute(
                "UPDATE reservations SET expires_at = %s WHERE id = %s",
                (now + lease_s, reservation),
            )

    async def settle(self, org: str, reservation: str, spent: Spent, *, now: float) -> None:
        async with self._tx() as conn:
            await conn.execute("DELETE FROM reservations WHERE id = %s", (reservation,))
            await conn.execute(
                "INSERT INTO usage_days (org, day, searches, pages_read, runs, cost_usd)"
                " VALUES (%s, %s, %s, %s, 1, %s) ON CONFLICT (org, day) DO UPDATE SET"
                " searches = usage_days.searches + excluded.searches,"
                " pages_read = usage_days.pages_read + excluded.pages_read,"
                " runs = usage_days.runs + 1,"
                " cost_usd = usage_days.cost_usd + excluded.cost_usd",
                (org, usage_day(now), spent.searches, spent.pages_read, spent.cost_usd),
            )

    async def release(self, reservation: str) -> None:
        async with self._conn() as conn:
            await conn.execute("DELETE FROM reservations WHERE id = %s", (reservation,))

    async def count_cached(self, org: str, *, now: float, n: int = 1) -> None:
        async with self._conn() as conn:
            await conn.execute(
                "INSERT INTO usage_days (org, day, cached) VALUES (%s, %s, %s)"
                " ON CONFLICT (org, day) DO UPDATE SET cached = usage_days.cached"
                " + excluded.cached",
                (org, usage_day(now), n),
            )

    async def usage(self, org: str, *, now: float, days: int = 31) -> UsageReport:
        first = (moment(now) - timedelta(days=days - 1)).strftime("%Y-%m-%d")
        async with self._conn() as conn:
            found = await _org_row(conn, org) or Org(org)
            searches, pages = await _month_used(conn, org, now)
            cost = await _month_cost(conn, org, now)
            cur = await conn.execute(
                "SELECT day, searches, pages_read, runs, cached, cost_usd FROM usage_days"
                " WHERE org = %s AND day >= %s ORDER BY day",
                (org, first),
            )
            rows = await cur.fetchall()
        return UsageReport(
            org,
            moment(now).strftime("%Y-%m"),
            searches,
            pages,
            found.quota_searches,
            found.quota_pages,
            tuple(UsageDay(r[0], int(r[1]), int(r[2]), int(r[3]), int(r[4]), float(r[5]))
                  for r in rows),
            cost,
        )  # fmt: skip

    async def hit_rate(self, org: str, *, now: float, per_minute: int) -> float | None:
        minute = int(now // 60)
        async with self._conn() as conn:
            cur = await conn.execute(
                "INSERT INTO rate_windows VALUES (%s, %s, 1) ON CONFLICT (org, minute)"
                " DO UPDATE SET hits = rate_windows.hits + 1 RETURNING hits",
                (org, minute),
            )
            (hits,) = await cur.fetchone() or (1,)
            if hits == 1:  # the window's first hit: the old windows can go
                await conn.execute(
                    "DELETE FROM rate_windows WHERE org = %s AND minute < %s", (org, minute)
                )
        return None if hits <= per_minute else max(1.0, (minute + 1) * 60 - now)

    # -- idempotency --------------------------------------------------------------------------

    async def claim_key(
        self, org: str, key: str, fingerprint: str, *, now: float, lease_s: float
    ) -> Idempotency:
        async with self._tx() as conn:
            await conn.execute(
                "DELETE FROM idempotency WHERE org = %s AND key = %s AND expires_at <= %s",
                (org, key, now),
            )
            cur = await conn.execute(
                "INSERT INTO idempotency VALUES (%s, %s, %s, false, 0, NULL, %s)"
                " ON CONFLICT (org, key) DO NOTHING RETURNING 1",
                (org, key, fingerprint, now + lease_s),
            )
            if await cur.fetchone() is not None:
                return Idempotency("new")
            cur = await conn.execute(
                "SELECT fingerprint, done, status, body FROM idempotency"
                " WHERE org = %s AND key = %s",
                (org, key),
            )
            row = await cur.fetchone()
        if row is None:  # deleted between our insert and read: the first claimant dropped it
            return Idempotency("running")
        if row[0] != fingerprint:
            return Idempotency("reused")
        if not row[1]:
            return Idempotency("running")
        return Idempotency("done", int(row[2]), bytes(row[3] or b""))

    async def finish_key(
        self, org: str, key: str, status: int, body: bytes, *, now: float, ttl_s: float
    ) -> None:
        async with self._tx() as conn:
            await conn.execute(
                "UPDATE idempotency SET done = true, status = %s, body = %s, expires_at = %s"
                " WHERE org = %s AND key = %s",
                (status, body, now + ttl_s, org, key),
            )
            await conn.execute("DELETE FROM idempotency WHERE expires_at <= %s", (now,))

    async def drop_key(self, org: str, key: str) -> None:
        async with self._conn() as conn:
            await conn.execute("DELETE FROM idempotency WHERE org = %s AND key = %s", (org, key))

    # -- the result cache and runs in flight ---------------------------------------------------

    async def cached(
        self, org: str, fingerprint: str, *, now: float, ttl_s: float
    ) -> Cached | None:
        async with self._conn() as conn:
            cur = await conn.execute(
                "SELECT body, created_at FROM result_cache WHERE org = %s AND fingerprint = %s"
                " AND created_at > %s AND created_at <= %s",
                (org, fingerprint, now - ttl_s, now),
            )
            row = await cur.fetchone()
        return Cached(bytes(row[0]), float(row[1])) if row else None

    async def cache(self, org: str, fingerprint: str, body: bytes, *, now: float) -> None:
        async with self._tx() as conn:
            await conn.execute(
                "INSERT INTO result_cache VALUES (%s, %s, %s, %s) ON CONFLICT (org, fingerprint)"
                " DO UPDATE SET body = excluded.body, created_at = excluded.created_at",
                (org, fingerprint, body, now),
            )
            await conn.execute("DELETE FROM result_cache WHERE created_at < %s", (now - DAY_S,))

    async def claim_flight(
        self, org: str, fingerprint: str, owner: str, *, now: float, lease_s: float
    ) -> bool:
        async with self._conn() as conn:
            cur = await conn.execute(
                "INSERT INTO flights VALUES (%s, %s, %s, %s) ON CONFLICT (org, fingerprint)"
                " DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at"
                " WHERE flights.owner = excluded.owner OR flights.expires_at <= %s"
                " RETURNING owner",
                (org, fingerprint, owner, now + lease_s, now),
            )
            return await cur.fetchone() is not None

    async def end_flight(self, org: str, fingerprint: str, owner: str) -> None:
        async with self._conn() as conn:
            await conn.execute(
                "DELETE FROM flights WHERE org = %s AND fingerprint = %s AND owner = %s",
                (org, fingerprint, owner),
            )

    async def log_events(
        self, org: str, run: str, events: Sequence[tuple[int, str]], *, now: float
    ) -> None:
        async with self._tx() as conn, conn.cursor() as cur:
            await cur.executemany(
                "INSERT INTO run_logs VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                [(org, run, idx, body, now) for idx, body in events],
            )
            await cur.execute("DELETE FROM run_logs WHERE at < %s", (now - DAY_S,))

    async def logged_events(self, org: str, run: str, after: int) -> list[tuple[int, str]]:
        async with self._conn() as conn:
            cur = await conn.execute(
                "SELECT idx, body FROM run_logs WHERE org = %s AND run = %s AND idx > %s"
                " ORDER BY idx",
                (org, run, after),
            )
            rows = await cur.fetchall()
        return [(int(i), str(b)) for i, b in rows]


async def _org_row(conn: Conn, name: str) -> Org | None:
    cur = await conn.execute(
        "SELECT name, plan, quota_searches, quota_pages FROM orgs WHERE name = %s", (name,)
    )
    row = await cur.fetchone()
    return Org(*row) if row else None


async def _month_used(conn: Conn, org: str, now: float) -> tuple[int, int]:
    month = moment(now).strftime("%Y-%m")
    cur = await conn.execute(
        "SELECT coalesce(sum(searches), 0), coalesce(sum(pages_read), 0) FROM usage_days"
        " WHERE org = %s AND day >= %s AND day < %s",
        (org, month + "-01", month + "-99"),
    )
    row = await cur.fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)


async def _month_cost(conn: Conn, org: str, now: float) -> float:
    month = moment(now).strftime("%Y-%m")
    cur = await conn.execute(
        "SELECT coalesce(sum(cost_usd), 0) FROM usage_days"
        " WHERE org = %s AND day >= %s AND day < %s",
        (org, month + "-01", month + "-99"),
    )
    row = await cur.fetchone()
    return float(row[0]) if row else 0.0


__all__ = ["PgServiceStore", "StoreError"]
