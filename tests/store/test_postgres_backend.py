"""What only the PostgreSQL backend has to prove: replicas (separate pools, separate processes)
sharing one database decide each race once, migrate a new database once, refuse a schema newer
than they know, and keep the page cache; a database that cannot be reached is a StoreError."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import pytest

from sleuth.errors import StoreError
from sleuth.store.migrate import SchemaTooNew
from sleuth.store.service import Admitted, Refused, Spent
from sleuth.types import Page

pytest.importorskip("psycopg", reason="needs the postgres extra: pip install -e '.[postgres]'")

NOW = 1_790_000_000.0


async def test_two_replicas_spend_the_last_unit_once(postgres_db: str) -> None:
    from sleuth.store.service_pg import PgServiceStore

    a, b = PgServiceStore(postgres_db), PgServiceStore(postgres_db)
    try:
        await a.create_key("acme", ("research",), now=NOW, quotas={"searches": 5})
        outcomes = await asyncio.gather(
            *(s.admit("acme", now=NOW, lease_s=60, max_running=None) for s in [a, b] * 10)
        )
        admitted = [o for o in outcomes if isinstance(o, Admitted)]
        # Five units: a running run holds one each, so five are admitted and fifteen refused
        # until they end (the units are held, not yet spent).
        assert len(admitted) == 5
        assert all(isinstance(o, Refused) and o.reason == "held" for o in outcomes
                   if not isinstance(o, Admitted))  # fmt: skip
        for i, admission in enumerate(admitted):
            await (a if i % 2 else b).settle("acme", admission.reservation, Spent(1, 0), now=NOW)
        assert (await b.usage("acme", now=NOW)).searches == 5
        claims = await asyncio.gather(
            *(s.claim_key("acme", "k1", "fp", now=NOW, lease_s=60) for s in [a, b] * 10)
        )
        assert sorted(c.state for c in claims) == ["new"] + ["running"] * 19
        flights = await asyncio.gather(
            *(s.claim_flight("acme", "fp", f"node{i}", now=NOW, lease_s=30)
              for i, s in enumerate([a, b] * 10))
        )  # fmt: skip
        assert flights.count(True) == 1
        hits = await asyncio.gather(
            *(s.hit_rate("acme", now=NOW, per_minute=7) for s in [a, b] * 10)
        )
        assert hits.count(None) == 7
    finally:
        await a.aclose()
        await b.aclose()


OPEN_ALL = """
import sys
from sleuth.store.service_pg import PgServiceStore
from sleuth.store.page_cache_pg import PgPageCache
PgServiceStore(sys.argv[1])
assert PgPageCache(sys.argv[1]).unavailable is None
"""


def test_replicas_starting_at_once_migrate_a_new_database_once(postgres_db: str) -> None:
    import psycopg

    procs = [
        subprocess.Popen([sys.executable, "-c", OPEN_ALL, postgres_db], stderr=subprocess.PIPE)
        for _ in range(6)
    ]
    errors = [p.communicate(timeout=120)[1].decode() for p in procs]
    assert all(p.returncode == 0 for p in procs), errors
    from sleuth.store.schemas import KNOWN

    with psycopg.connect(postgres_db) as conn:
        rows = dict(conn.execute("SELECT component, version FROM sleuth_schema").fetchall())
    assert rows == {name: len(steps) for name, steps in KNOWN.items()}


def test_a_schema_newer_than_this_sleuth_is_refused(postgres_db: str) -> None:
    import psycopg

    from sleuth.store.service_pg import PgServiceStore

    PgServiceStore(postgres_db)
    with psycopg.connect(postgres_db, autocommit=True) as conn:
        conn.execute("UPDATE sleuth_schema SET version = 99 WHERE component = 'service'")
    with pytest.raises(SchemaTooNew, match=r"service schema at version 99, newer than this"):
        PgServiceStore(postgres_db)


def test_the_page_cache_is_shared_and_expires(postgres_db: str) -> None:
    from sleuth.store.page_cache_pg import PgPageCache

    clock = [1000.0]
    one = PgPageCache(postgres_db, ttl_s=60, clock=lambda: clock[0])
    two = PgPageCache(postgres_db, ttl_s=60, clock=lambda: clock[0])
    page = Page("https://a.example/x", "X", "body \u00e9 \x00 nul", "2026-12-01T00:00:00Z")
    one.put(page)
    got = two.get(page.url)
    assert got is not None and got.text == page.text and got.title == "X"
    clock[0] += 61
    assert two.get(page.url) is None
    assert one.prune() == 1


def test_an_unreachable_database_is_a_store_error_naming_it_without_the_password() -> None:
    from sleuth.store.service_pg import PgServiceStore

    url = "postgresql://sleuth:hunter2@127.0.0.1:1/nowhere?connect_timeout=2"
    started = time.monotonic()
    with pytest.raises(StoreError) as caught:
        PgServiceStore(url)
    assert "127.0.0.1" in str(caught.value) and "hunter2" not in str(caught.value)
    assert time.monotonic() - started < 60


def test_an_unreachable_page_cache_turns_itself_off() -> None:
    from sleuth.store.page_cache_pg import PgPageCache

    cache = PgPageCache("postgresql://sleuth@127.0.0.1:1/nowhere?connect_timeout=2")
    assert cache.unavailable
    assert cache.get("https://a.example/") is None
