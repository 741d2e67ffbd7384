"""`ServiceStore` in one SQLite file under SLEUTH_HOME (`service.db`), beside `sessions.db`.

Every decision two requests could race on is one `BEGIN IMMEDIATE` transaction: SQLite lets
one writer in at a time across threads and processes (`sleuth serve --workers N` shares the
file), so reading a count and writing a row inside it is atomic. Writes run on one writer
thread so the event loop never waits on the disk; reads run inline (WAL readers do not wait).
WAL with `synchronous=NORMAL`: a crash of the process loses nothing committed; a power cut may
lose the last few commits, never consistency.
"""

from __future__ import annotations

import asyncio
import functools
import json
import secrets
import sqlite3
import threading
from collections.abc import Callable, Coroutine, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing, contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

from ..disk.sqlite import enable_wal, refusing
from ..errors import StoreError
from .migrate import migrate, user_version
from .nodes import NodeLock, dead_nodes, forget, is_dead
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
from .service_schema import (
    CLAIMS,
    MIGRATIONS,
    ORG_MODEL_COLUMNS,
    key_row,
    moment,
    month_cost,
    month_used,
    org_model_row,
    org_model_values,
    org_row,
    reserved,
)
from .sessions import SessionStore

P = ParamSpec("P")
T = TypeVar("T")
S = TypeVar("S")
DAY_S = 86400.0


def reading(
    fn: Callable[Concatenate[S, P], T],
) -> Callable[Concatenate[S, P], Coroutine[Any, Any, T]]:
    """A read, run inline: in WAL mode a reader never waits for a writer, and a local read
    (well under a millisecond) costs less than handing it to a thread."""

    async def call(self: S, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return fn(self, *args, **kwargs)

    call.__doc__ = fn.__doc__
    return call


def writing(
    fn: Callable[Concatenate[S, P], T],
) -> Callable[Concatenate[S, P], Coroutine[Any, Any, T]]:
    """A write, run on the store's one writer thread: writes of this process queue there in
    order instead of contending for SQLite's lock, and the event loop never waits on the disk
    (or on another process holding the lock)."""

    async def call(self: S, /, *args: P.args, **kwargs: P.kwargs) -> T:
        loop = asyncio.get_running_loop()
        job = functools.partial(fn, self, *args, **kwargs)
        return await loop.run_in_executor(self._writer, job)  # type: ignore[attr-defined]

    call.__doc__ = fn.__doc__
    return call


def _iso(now: float) -> str:
    return moment(now).isoformat(timespec="seconds").replace("+00:00", "Z")


WHAT = "service database"


class SqliteServiceStore:
    def __init__(self, home: Path, sessions: SessionStore | None = None) -> None:
        home.mkdir(parents=True, exist_ok=True)
        self.path = home / "service.db"
        self._nodes = home / "nodes"
        self._node: NodeLock | None = None
        self._node_made = threading.Lock()
        self._sessions = sessions or SessionStore(home / "sessions.db")
        self._local = threading.local()
        self._writing = threading.Lock()
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="sleuth-service-store")
        refusing(self.path, WHAT, self._prepare)

    def _prepare(self) -> None:
        with closing(self._open()) as conn:
            enable_wal(conn)
            migrate(conn, MIGRATIONS, "service")

    @property
    def sessions(self) -> SessionStore:
        return self._sessions

    @property
    def node(self) -> str:
        """This store's node id, the owner of every claim it makes. Its lock is taken on
        first use (a `sleuth keys` command never takes one), and dead nodes' claims found
        then are dropped."""
        with self._node_made:
            if self._node is None:
                self._node = NodeLock(self._nodes)
                gone = dead_nodes(self._nodes)
                with self._tx() as conn:
                    _drop_claims(conn, gone)
                forget(self._nodes, gone)
            return self._node.id

    def _void_dead_claims(self, conn: sqlite3.Connection, table: str, where: str,
                          args: tuple[Any, ...]) -> None:  # fmt: skip
        """Inside a write transaction: drop the claims of dead nodes among the owners of the
        rows of `table` matching `where` (others' claims keep their leases)."""
        query = f"SELECT DISTINCT owner FROM {table} WHERE {where}"
        owners = {row[0] for row in conn.execute(query, args)} - {self.node}
        gone = [owner for owner in owners if is_dead(self._nodes, owner)]
        if gone:
            _drop_claims(conn, gone)
            forget(self._nodes, gone)

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    def _conn(self) -> sqlite3.Connection:
        """This thread's connection, opened once: calls run in a small pool of worker threads,
        and opening a connection per call cost more than most calls."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = self._open()
        return conn

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One write transaction. Writers of this process queue on a lock (and on the one
        writer thread) rather than in SQLite's busy handler, whose sleeps (1 ms growing to
        100 ms) add up under load; other processes are kept out by the database lock."""
        with self._writing:
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        yield self._conn()

    async def aclose(self) -> None:
        self._writer.shutdown(wait=True)
        with self._node_made:
            if self._node is not None:
                self._node.close()

    @reading
    def ping(self) -> None:
        with self._read() as conn:
            conn.execute("SELECT count(*) FROM orgs").fetchone()
            found = user_version(conn)
        if found != len(MIGRATIONS):
            raise StoreError(
                f"{self.path}: the service schema is at version {found}, this Sleuth writes "
                f"{len(MIGRATIONS)}"
            )

    # -- organizations and keys ----------------------------------------------------------------

    @writing
    def create_key(
        self, org: str, scopes: tuple[str, ...], *, now: float, quotas: Mapping[str, int | None]
    ) -> tuple[ApiKey, str]:
        scopes = check_scopes(scopes)
        key_id, secret = new_secret()
        with self._tx() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO orgs (name, plan, created_at) VALUES (?, 'self-hosted', ?)",
                (org, _iso(now)),
            )
            for meter, column in (("searches", "quota_searches"), ("pages", "quota_pages")):
                if quotas.get(meter) is not None:
                    conn.execute(
                        f"UPDATE orgs SET {column} = ? WHERE name = ?", (quotas[meter], org)
                    )
            conn.execute(
                "INSERT INTO api_keys (id, org, hash, scopes, created_at) VALUES (?, ?, ?, ?, ?)",
                (key_id, org, hash_secret(secret), json.dumps(list(scopes)), _iso(now)),
            )
        return ApiKey(key_id, org, scopes, _iso(now)), secret

    @reading
    def key_for(self, secret: str) -> ApiKey | None:
        with self._read() as conn:
            row = conn.execute(
                "SELECT id, org, scopes, created_at, revoked_at FROM api_keys"
                " WHERE hash = ? AND revoked_at IS NULL",
                (hash_secret(secret),),
            ).fetchone()
        return key_row(row) if row else None

    @reading
    def keys(self, org: str | None = None) -> list[ApiKey]:
        sql = "SELECT id, org, scopes, created_at, revoked_at FROM api_keys"
        args: tuple[str, ...] = ()
        if org is not None:
            sql, args = sql + " WHERE org = ?", (org,)
        with self._read() as conn:
            rows = conn.execute(sql + " ORDER BY org, created_at, id", args).fetchall()
        return [key_row(r) for r in rows]

    @writing
    def revoke_key(self, key_id: str, *, now: float) -> ApiKey | None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                (_iso(now), key_id),
            )
            row = conn.execute(
                "SELECT id, org, scopes, created_at, revoked_at FROM api_keys WHERE id = ?",
                (key_id,),
            ).fetchone()
        return key_row(row) if row else None

    @reading
    def has_keys(self) -> bool:
        with self._read() as conn:
            row = conn.execute("SELECT 1 FROM api_keys WHERE revoked_at IS NULL LIMIT 1")
            return row.fetchone() is not None

    @reading
    def org(self, name: str) -> Org | None:
        with self._read() as conn:
            return org_row(conn, name)

    @writing
    def set_org_model(self, model: OrgModel, *, now: float) -> None:
        with self._tx() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO orgs (name, plan, created_at) VALUES (?, 'self-hosted', ?)",
                (model.org, _iso(now)),
            )
            conn.execute(
                f"INSERT OR REPLACE INTO org_models ({ORG_MODEL_COLUMNS})"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                org_model_values(model, _iso(now)),
            )

    @reading
    def org_model(self, org: str) -> OrgModel | None:
        with self._read() as conn:
            row = conn.execute(
                f"SELECT {ORG_MODEL_COLUMNS} FROM org_models WHERE org = ?", (org,)
            ).fetchone()
        return org_model_row(row) if row else None

    @reading
    def org_models(self) -> list[OrgModel]:
        with self._read() as conn:
            rows = conn.execute(f"SELECT {ORG_MODEL_COLUMNS} FROM org_models ORDER BY org")
            return [org_model_row(r) for r in rows.fetchall()]

    @writing
    def clear_org_model(self, org: str) -> bool:
        with self._tx() as conn:
            return conn.execute("DELETE FROM org_models WHERE org = ?", (org,)).rowcount > 0

    # -- quotas, concurrency and usage ------------------------------------------------------------

    @writing
    def admit(
        self,
        org: str,
        *,
        now: float,
        lease_s: float,
        max_running: int | None,
        want: Spent = ONE_SEARCH,
        run: bool = True,
    ) -> Admission:
        owner = self.node
        with self._tx() as conn:
            conn.execute("DELETE FROM reservations WHERE expires_at <= ?", (now,))
            self._void_dead_claims(conn, "reservations", "org = ?", (org,))
            running, held = reserved(conn, org)
            if run and max_running is not None and running >= max_running:
                return Refused("busy", retry_after=1.0)
            found = org_row(conn, org)
            allowed = allowance(found, Spent(*month_used(conn, org, now)), held, want)
            if isinstance(allowed, Refused):
                return allowed
            reservation = secrets.token_hex(8)
            conn.execute(
                "INSERT INTO reservations (id, org, expires_at, owner, run, searches, pages)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (reservation, org, now + lease_s, owner, int(run), allowed.searches or 0,
                 allowed.pages_read or 0),
            )  # fmt: skip
        return Admitted(reservation, allowed)

    @writing
    def renew(self, reservation: str, *, now: float, lease_s: float) -> None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE reservations SET expires_at = ? WHERE id = ?", (now + lease_s, reservation)
            )

    @writing
    def settle(self, org: str, reservation: str, spent: Spent, *, now: float) -> None:
        with self._tx() as conn:
            conn.execute("DELETE FROM reservations WHERE id = ?", (reservation,))
            conn.execute(
                "INSERT INTO usage_days (org, day, searches, pages_read, runs, cost_usd)"
                " VALUES (?, ?, ?, ?, 1, ?)"
                " ON CONFLICT (org, day) DO UPDATE SET searches = searches + excluded.searches,"
                " pages_read = pages_read + excluded.pages_read, runs = runs + 1,"
                " cost_usd = cost_usd + excluded.cost_usd",
                (org, usage_day(now), spent.searches, spent.pages_read, spent.cost_usd),
            )

    @writing
    def release(self, reservation: str) -> None:
        with self._tx() as conn:
            conn.execute("DELETE FROM reservations WHERE id = ?", (reservation,))

    @writing
    def count_cached(self, org: str, *, now: float, n: int = 1) -> None:
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO usage_days (org, day, cached) VALUES (?, ?, ?)"
                " ON CONFLICT (org, day) DO UPDATE SET cached = cached + excluded.cached",
                (org, usage_day(now), n),
            )

    @reading
    def usage(self, org: str, *, now: float, days: int = 31) -> UsageReport:
        first = (moment(now) - timedelta(days=days - 1)).strftime("%Y-%m-%d")
        with self._read() as conn:
            found = org_row(conn, org) or Org(org)
            searches, pages = month_used(conn, org, now)
            cost = month_cost(conn, org, now)
            rows = conn.execute(
                "SELECT day, searches, pages_read, runs, cached, cost_usd FROM usage_days"
                " WHERE org = ? AND day >= ? ORDER BY day",
                (org, first),
            ).fetchall()
        return UsageReport(
            org,
            moment(now).strftime("%Y-%m"),
            searches,
            pages,
            found.quota_searches,
            found.quota_pages,
            tuple(UsageDay(*row) for row in rows),
            cost,
        )

    @writing
    def hit_rate(self, org: str, *, now: float, per_minute: int) -> float | None:
        minute = int(now // 60)
        with self._tx() as conn:
            conn.execute("DELETE FROM rate_windows WHERE org = ? AND minute < ?", (org, minute))
            conn.execute(
                "INSERT INTO rate_windows VALUES (?, ?, 1)"
                " ON CONFLICT (org, minute) DO UPDATE SET hits = hits + 1",
                (org, minute),
            )
            (hits,) = conn.execute(
                "SELECT hits FROM rate_windows WHERE org = ? AND minute = ?", (org, minute)
            ).fetchone()
        return None if hits <= per_minute else max(1.0, (minute + 1) * 60 - now)

    # -- idempotency --------------------------------------------------------------------------

    @writing
    def claim_key(
        self, org: str, key: str, fingerprint: str, *, now: float, lease_s: float
    ) -> Idempotency:
        owner = self.node
        with self._tx() as conn:
            conn.execute(
                "DELETE FROM idempotency WHERE org = ? AND key = ? AND expires_at <= ?",
                (org, key, now),
            )
            self._void_dead_claims(conn, "idempotency", "org = ? AND key = ? AND done = 0",
                                   (org, key))  # fmt: skip
            row = conn.execute(
                "SELECT fingerprint, done, status, body FROM idempotency WHERE org = ? AND key = ?",
                (org, key),
            ).fetchone()
            if row is None:
                conn.execute(
                    "INSERT INTO idempotency (org, key, fingerprint, done, status, body,"
                    " expires_at, owner) VALUES (?, ?, ?, 0, 0, NULL, ?, ?)",
                    (org, key, fingerprint, now + lease_s, owner),
                )
                return Idempotency("new")
        if row[0] != fingerprint:
            return Idempotency("reused")
        if not row[1]:
            return Idempotency("running")
        return Idempotency("done", int(row[2]), bytes(row[3] or b""))

    @writing
    def finish_key(
        self, org: str, key: str, status: int, body: bytes, *, now: float, ttl_s: float
    ) -> None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE idempotency SET done = 1, status = ?, body = ?, expires_at = ?"
                " WHERE org = ? AND key = ?",
                (status, body, now + ttl_s, org, key),
            )
            conn.execute("DELETE FROM idempotency WHERE expires_at <= ?", (now,))

    @writing
    def drop_key(self, org: str, key: str) -> None:
        with self._tx() as conn:
            conn.execute("DELETE FROM idempotency WHERE org = ? AND key = ?", (org, key))

    # -- the result cache and runs in flight ---------------------------------------------------

    @reading
    def cached(self, org: str, fingerprint: str, *, now: float, ttl_s: float) -> Cached | None:
        with self._read() as conn:
            row = conn.execute(
                "SELECT body, created_at FROM result_cache WHERE org = ? AND fingerprint = ?"
                " AND created_at > ? AND created_at <= ?",
                (org, fingerprint, now - ttl_s, now),
            ).fetchone()
        return Cached(bytes(row[0]), float(row[1])) if row else None

    @writing
    def cache(self, org: str, fingerprint: str, body: bytes, *, now: float) -> None:
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO result_cache VALUES (?, ?, ?, ?) ON CONFLICT (org, fingerprint)"
                " DO UPDATE SET body = excluded.body, created_at = excluded.created_at",
                (org, fingerprint, body, now),
            )
            conn.execute("DELETE FROM result_cache WHERE created_at < ?", (now - DAY_S,))

    @writing
    def claim_flight(
        self, org: str, fingerprint: str, owner: str, *, now: float, lease_s: float
    ) -> bool:
        self.node  # noqa: B018  (this process's lock is taken before it claims anything)
        with self._tx() as conn:
            args = (org, fingerprint)
            self._void_dead_claims(conn, "flights", "org = ? AND fingerprint = ?", args)
            row = conn.execute(
                "SELECT owner, expires_at FROM flights WHERE org = ? AND fingerprint = ?",
                (org, fingerprint),
            ).fetchone()
            if row is not None and row[0] != owner and row[1] > now:
                return False
            conn.execute(
                "INSERT INTO flights VALUES (?, ?, ?, ?) ON CONFLICT (org, fingerprint)"
                " DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at",
                (org, fingerprint, owner, now + lease_s),
            )
        return True

    @writing
    def end_flight(self, org: str, fingerprint: str, owner: str) -> None:
        with self._tx() as conn:
            conn.execute(
                "DELETE FROM flights WHERE org = ? AND fingerprint = ? AND owner = ?",
                (org, fingerprint, owner),
            )

    @writing
    def log_events(
        self, org: str, run: str, events: Sequence[tuple[int, str]], *, now: float
    ) -> None:
        with self._tx() as conn:
            conn.executemany(
                "INSERT INTO run_logs VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [(org, run, idx, body, now) for idx, body in events],
            )
            conn.execute("DELETE FROM run_logs WHERE at < ?", (now - DAY_S,))

    @reading
    def logged_events(self, org: str, run: str, after: int) -> list[tuple[int, str]]:
        with self._read() as conn:
            rows = conn.execute(
                "SELECT idx, body FROM run_logs WHERE org = ? AND run = ? AND idx > ? ORDER BY idx",
                (org, run, after),
            ).fetchall()
        return [(int(i), str(b)) for i, b in rows]


def _drop_claims(conn: sqlite3.Connection, owners: list[str]) -> None:
    """Every claim of these (dead) nodes, in the transaction `conn` is in."""
    if not owners:
        return
    marks = ", ".join("?" * len(owners))
    for table in CLAIMS:
        done = " AND done = 0" if table == "idempotency" else ""
        conn.execute(f"DELETE FROM {table} WHERE owner IN ({marks}){done}", owners)
