"""The SQLite service store's schema and the queries several of its decisions share."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from typing import Any

from .service import ApiKey, Org, OrgModel, Spent


def v1(conn: sqlite3.Connection) -> None:
    for sql in (
        """CREATE TABLE orgs (name TEXT PRIMARY KEY, plan TEXT NOT NULL, created_at TEXT NOT NULL,
            quota_searches INTEGER, quota_pages INTEGER)""",
        """CREATE TABLE api_keys (id TEXT PRIMARY KEY, org TEXT NOT NULL REFERENCES orgs(name),
            hash TEXT NOT NULL UNIQUE, scopes TEXT NOT NULL, created_at TEXT NOT NULL,
            revoked_at TEXT)""",
        """CREATE TABLE usage_days (org TEXT NOT NULL, day TEXT NOT NULL,
            searches INTEGER NOT NULL DEFAULT 0, pages_read INTEGER NOT NULL DEFAULT 0,
            runs INTEGER NOT NULL DEFAULT 0, cached INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (org, day))""",
        """CREATE TABLE reservations (id TEXT PRIMARY KEY, org TEXT NOT NULL,
            expires_at REAL NOT NULL)""",
        "CREATE INDEX reservations_org ON reservations(org)",
        """CREATE TABLE rate_windows (org TEXT NOT NULL, minute INTEGER NOT NULL,
            hits INTEGER NOT NULL, PRIMARY KEY (org, minute))""",
        """CREATE TABLE idempotency (org TEXT NOT NULL, key TEXT NOT NULL,
            fingerprint TEXT NOT NULL, done INTEGER NOT NULL, status INTEGER NOT NULL,
            body BLOB, expires_at REAL NOT NULL, PRIMARY KEY (org, key))""",
        """CREATE TABLE result_cache (org TEXT NOT NULL, fingerprint TEXT NOT NULL,
            body BLOB NOT NULL, created_at REAL NOT NULL, PRIMARY KEY (org, fingerprint))""",
        """CREATE TABLE flights (org TEXT NOT NULL, fingerprint TEXT NOT NULL, owner TEXT NOT NULL,
            expires_at REAL NOT NULL, PRIMARY KEY (org, fingerprint))""",
    ):
        conn.execute(sql)


def v2_owners(conn: sqlite3.Connection) -> None:
    """Reservations and Idempotency-Key claims name the node that made them (flights always
    did), so a dead node's claims can be dropped at once (`nodes.py`)."""
    conn.execute("ALTER TABLE reservations ADD COLUMN owner TEXT NOT NULL DEFAULT ''")
    conn.execute("ALTER TABLE idempotency ADD COLUMN owner TEXT NOT NULL DEFAULT ''")


def v3_run_logs(conn: sqlite3.Connection) -> None:
    """Runs' event logs, so a process that does not own a run can follow it."""
    conn.execute(
        """CREATE TABLE run_logs (org TEXT NOT NULL, run TEXT NOT NULL, idx INTEGER NOT NULL,
        body TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (org, run, idx))"""
    )
    conn.execute("CREATE INDEX run_logs_at ON run_logs(at)")


def v4_held(conn: sqlite3.Connection) -> None:
    """A reservation holds what its work may spend of each quota, and says whether it is a run
    (counted against the organization's running-run limit) or a lookup."""
    conn.execute("ALTER TABLE reservations ADD COLUMN run INTEGER NOT NULL DEFAULT 1")
    conn.execute("ALTER TABLE reservations ADD COLUMN searches INTEGER NOT NULL DEFAULT 0")
    conn.execute("ALTER TABLE reservations ADD COLUMN pages INTEGER NOT NULL DEFAULT 0")


def v5_org_models(conn: sqlite3.Connection) -> None:
    """Organizations' own model settings (the API key sealed with the server's secret key),
    and what runs spent on models, per organization and day."""
    conn.execute(
        """CREATE TABLE org_models (org TEXT PRIMARY KEY REFERENCES orgs(name),
        api_format TEXT NOT NULL, model TEXT NOT NULL, base_url TEXT NOT NULL,
        sealed_key BLOB, plan_model TEXT, critic_model TEXT, updated_at TEXT NOT NULL)"""
    )
    conn.execute("ALTER TABLE usage_days ADD COLUMN cost_usd REAL NOT NULL DEFAULT 0")


MIGRATIONS = (v1, v2_owners, v3_run_logs, v4_held, v5_org_models)
CLAIMS = ("reservations", "flights", "idempotency")  # tables whose rows a node owns


def moment(now: float) -> datetime:
    return datetime.fromtimestamp(now, UTC)


def key_row(row: tuple[Any, ...]) -> ApiKey:
    return ApiKey(row[0], row[1], tuple(json.loads(row[2])), row[3], row[4])


def org_row(conn: sqlite3.Connection, name: str) -> Org | None:
    row = conn.execute(
        "SELECT name, plan, quota_searches, quota_pages FROM orgs WHERE name = ?", (name,)
    ).fetchone()
    return Org(*row) if row else None


ORG_MODEL_COLUMNS = (
    "org, api_format, model, base_url, sealed_key, plan_model, critic_model, updated_at"
)


def org_model_row(row: tuple[Any, ...]) -> OrgModel:
    sealed = None if row[4] is None else bytes(row[4])
    return OrgModel(row[0], row[1], row[2], row[3], sealed, row[5], row[6], row[7])


def org_model_values(model: OrgModel, at: str) -> tuple[Any, ...]:
    return (model.org, model.api_format, model.model, model.base_url, model.sealed_key,
            model.plan_model, model.critic_model, at)  # fmt: skip


def month_cost(conn: sqlite3.Connection, org: str, now: float) -> float:
    month = moment(now).strftime("%Y-%m")
    row = conn.execute(
        "SELECT coalesce(sum(cost_usd), 0) FROM usage_days WHERE org = ? AND substr(day, 1, 7) = ?",
        (org, month),
    ).fetchone()
    return float(row[0])


def month_used(conn: sqlite3.Connection, org: str, now: float) -> tuple[int, int]:
    month = moment(now).strftime("%Y-%m")
    row = conn.execute(
        "SELECT coalesce(sum(searches), 0), coalesce(sum(pages_read), 0) FROM usage_days"
        " WHERE org = ? AND substr(day, 1, 7) = ?",
        (org, month),
    ).fetchone()
    return int(row[0]), int(row[1])


def reserved(conn: sqlite3.Connection, org: str) -> tuple[int, Spent]:
    """The organization's runs going, and what all its running work holds of its quotas."""
    row = conn.execute(
        "SELECT coalesce(sum(run), 0), coalesce(sum(searches), 0), coalesce(sum(pages), 0)"
        " FROM reservations WHERE org = ?",
        (org,),
    ).fetchone()
    return int(row[0]), Spent(int(row[1]), int(row[2]))
