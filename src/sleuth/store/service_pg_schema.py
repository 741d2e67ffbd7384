"""The PostgreSQL service store's schema, apart from the store so that the list of every known
schema (`schemas.py`) and the store that checks it do not import each other."""

from __future__ import annotations

COMPONENT = "service"

# Append only: a database at version N runs STEPS[N:] (see `postgres.migrate`).
STEPS: tuple[str, ...] = (
    """CREATE TABLE orgs (name TEXT PRIMARY KEY, plan TEXT NOT NULL, created_at TEXT NOT NULL,
        quota_searches BIGINT, quota_pages BIGINT);
    CREATE TABLE api_keys (id TEXT PRIMARY KEY, org TEXT NOT NULL REFERENCES orgs(name),
        hash TEXT NOT NULL UNIQUE, scopes TEXT NOT NULL, created_at TEXT NOT NULL,
        revoked_at TEXT);
    CREATE TABLE usage_days (org TEXT NOT NULL, day TEXT COLLATE "C" NOT NULL,
        searches BIGINT NOT NULL DEFAULT 0, pages_read BIGINT NOT NULL DEFAULT 0,
        runs BIGINT NOT NULL DEFAULT 0, cached BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (org, day));
    CREATE TABLE reservations (id TEXT PRIMARY KEY, org TEXT NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL);
    CREATE INDEX reservations_org ON reservations (org);
    CREATE TABLE rate_windows (org TEXT NOT NULL, minute BIGINT NOT NULL,
        hits BIGINT NOT NULL, PRIMARY KEY (org, minute));
    CREATE TABLE idempotency (org TEXT NOT NULL, key TEXT NOT NULL,
        fingerprint TEXT NOT NULL, done BOOLEAN NOT NULL, status INTEGER NOT NULL,
        body BYTEA, expires_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (org, key));
    CREATE TABLE result_cache (org TEXT NOT NULL, fingerprint TEXT NOT NULL,
        body BYTEA NOT NULL, created_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (org, fingerprint));
    CREATE INDEX result_cache_created ON result_cache (created_at);
    CREATE TABLE flights (org TEXT NOT NULL, fingerprint TEXT NOT NULL, owner TEXT NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (org, fingerprint))""",
    # Runs' event logs, so a replica that does not own a run can follow it.
    """CREATE TABLE run_logs (org TEXT NOT NULL, run TEXT NOT NULL, idx INTEGER NOT NULL,
        body TEXT NOT NULL, at DOUBLE PRECISION NOT NULL, PRIMARY KEY (org, run, idx));
    CREATE INDEX run_logs_at ON run_logs (at)""",
    # A reservation holds what its work may spend of each quota, and says whether it is a run
    # (counted against the running-run limit) or a lookup.
    """ALTER TABLE reservations ADD COLUMN run BOOLEAN NOT NULL DEFAULT TRUE;
    ALTER TABLE reservations ADD COLUMN searches BIGINT NOT NULL DEFAULT 0;
    ALTER TABLE reservations ADD COLUMN pages BIGINT NOT NULL DEFAULT 0""",
    # Organizations' own model settings (the API key sealed with the server's secret key),
    # and what runs spent on models, per organization and day.
    """CREATE TABLE org_models (org TEXT PRIMARY KEY REFERENCES orgs(name),
        api_format TEXT NOT NULL, model TEXT NOT NULL, base_url TEXT NOT NULL,
        sealed_key BYTEA, plan_model TEXT, critic_model TEXT, updated_at TEXT NOT NULL);
    ALTER TABLE usage_days ADD COLUMN cost_usd DOUBLE PRECISION NOT NULL DEFAULT 0""",
)
