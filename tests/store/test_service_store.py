"""The service store, on SQLite and on PostgreSQL: keys hashed, quotas admitted atomically,
idempotency claims, the result cache's window, in-flight claims with leases, and migrations
under concurrency."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from sleuth.errors import UsageError
from sleuth.store.service import Admitted, Cached, Refused, ServiceStore, Spent
from sleuth.store.service_schema import MIGRATIONS as SERVICE_MIGRATIONS
from sleuth.store.service_sqlite import SqliteServiceStore
from sleuth.store.sessions import MIGRATIONS as SESSION_MIGRATIONS

NOW = 1_790_000_000.0  # a fixed moment; every call is given its time


@pytest.fixture
async def store(tmp_path: Path, backend: str | None) -> AsyncIterator[ServiceStore]:
    if backend is None:
        opened: ServiceStore = SqliteServiceStore(tmp_path / "home")
    else:
        from sleuth.store.service_pg import PgServiceStore

        opened = PgServiceStore(backend)
    yield opened
    await opened.aclose()


async def test_a_key_is_shown_once_and_stored_only_as_a_hash(
    store: ServiceStore,
) -> None:
    key, secret = await store.create_key("acme", ("research",), now=NOW, quotas={})
    assert secret.startswith(f"slk_{key.id}_") and len(secret) > 40
    assert (await store.key_for(secret)) == key
    assert await store.key_for(secret + "x") is None
    assert secret.encode() not in _stored_bytes(store)
    revoked = await store.revoke_key(key.id, now=NOW + 1)
    assert revoked is not None and not revoked.active
    assert await store.key_for(secret) is None
    assert not await store.has_keys()


def _stored_bytes(store: ServiceStore) -> bytes:
    """Everything the store keeps: its files, or a dump of every PostgreSQL table."""
    if isinstance(store, SqliteServiceStore):
        files = [p for p in store.path.parent.iterdir() if p.name.startswith("service.db")]
        assert files
        return b"".join(p.read_bytes() for p in files)
    import psycopg

    dump = []
    with psycopg.connect(store.url) as conn:  # type: ignore[attr-defined]
        tables = conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchall()
        assert ("api_keys",) in tables
        for (table,) in tables:
            dump.append(repr(conn.execute(f'SELECT * FROM "{table}"').fetchall()))
    return "".join(dump).encode()


async def test_unknown_scopes_are_refused(store: ServiceStore) -> None:
    with pytest.raises(UsageError, match="unknown scope"):
        await store.create_key("acme", ("research", "admin"), now=NOW, quotas={})


async def test_concurrent_admissions_cannot_both_spend_the_last_unit(
    store: ServiceStore,
) -> None:
    await store.create_key("acme", ("research",), now=NOW, quotas={"searches": 3})
    first = await store.admit("acme", now=NOW, lease_s=60, max_running=None)
    assert isinstance(first, Admitted)
    await store.settle("acme", first.reservation, Spent(2, 5), now=NOW)
    # One unit left: of 20 concurrent admissions exactly one gets it.
    outcomes = await asyncio.gather(
        *(store.admit("acme", now=NOW, lease_s=60, max_running=None) for _ in range(20))
    )
    admitted = [o for o in outcomes if isinstance(o, Admitted)]
    assert len(admitted) == 1
    refused = [o for o in outcomes if isinstance(o, Refused)]
    # The last unit is held by the admitted run: the others may retry when it ends.
    assert len(refused) == 19 and {o.reason for o in refused} == {"held"}
    await store.settle("acme", admitted[0].reservation, Spent(1, 2), now=NOW)
    report = await store.usage("acme", now=NOW)
    assert (report.searches, report.pages_read, report.quota_searches) == (3, 7, 3)
    assert report.days[0].runs == 2
    spent = await store.admit("acme", now=NOW, lease_s=60, max_running=None)
    assert isinstance(spent, Refused) and spent.reason == "quota"  # now it is used up


async def test_running_limit_and_lease_expiry(store: ServiceStore) -> None:
    a = await store.admit("acme", now=NOW, lease_s=10, max_running=1)
    b = await store.admit("acme", now=NOW + 1, lease_s=10, max_running=1)
    assert isinstance(a, Admitted) and isinstance(b, Refused) and b.reason == "busy"
    # The first run's process died: its lease runs out and the slot is free again.
    c = await store.admit("acme", now=NOW + 11, lease_s=10, max_running=1)
    assert isinstance(c, Admitted)


async def test_idempotency_claims(store: ServiceStore) -> None:
    assert (await store.claim_key("a", "k", "fp1", now=NOW, lease_s=60)).state == "new"
    assert (await store.claim_key("a", "k", "fp1", now=NOW, lease_s=60)).state == "running"
    assert (await store.claim_key("a", "k", "fp2", now=NOW, lease_s=60)).state == "reused"
    assert (await store.claim_key("b", "k", "fp2", now=NOW, lease_s=60)).state == "new"
    await store.finish_key("a", "k", 200, b'{"x":1}', now=NOW, ttl_s=86400)
    done = await store.claim_key("a", "k", "fp1", now=NOW + 3600, lease_s=60)
    assert (done.state, done.status, done.body) == ("done", 200, b'{"x":1}')
    assert (await store.claim_key("a", "k", "fp1", now=NOW + 86401, lease_s=60)).state == "new"
    await store.drop_key("a", "k")
    assert (await store.claim_key("a", "k", "fp9", now=NOW, lease_s=60)).state == "new"


async def test_result_cache_window_and_org_isolation(store: ServiceStore) -> None:
    await store.cache("a", "fp", b"body", now=NOW)
    assert await store.cached("a", "fp", now=NOW + 60, ttl_s=600) == Cached(b"body", NOW)
    assert await store.cached("b", "fp", now=NOW + 60, ttl_s=600) is None
    assert await store.cached("a", "fp", now=NOW + 601, ttl_s=600) is None


async def test_flight_claims_are_exclusive_until_released_or_expired(
    store: ServiceStore,
) -> None:
    assert await store.claim_flight("a", "fp", "one", now=NOW, lease_s=30)
    assert not await store.claim_flight("a", "fp", "two", now=NOW + 1, lease_s=30)
    assert await store.claim_flight("a", "fp", "two", now=NOW + 31, lease_s=30)
    await store.end_flight("a", "fp", "one")  # not the owner any more: nothing happens
    assert not await store.claim_flight("a", "fp", "three", now=NOW + 32, lease_s=30)
    await store.end_flight("a", "fp", "two")
    assert await store.claim_flight("a", "fp", "three", now=NOW + 33, lease_s=30)


async def test_rate_window(store: ServiceStore) -> None:
    start = 60.0 * int(NOW // 60)
    assert [await store.hit_rate("a", now=start, per_minute=2) for _ in range(2)] == [None, None]
    wait = await store.hit_rate("a", now=start + 15, per_minute=2)
    assert wait == 45
    assert await store.hit_rate("a", now=start + 60, per_minute=2) is None


OPEN_BOTH = """
import sys
from pathlib import Path
from sleuth.store.service_sqlite import SqliteServiceStore
SqliteServiceStore(Path(sys.argv[1]))
"""


def test_first_use_by_many_processes_at_once_migrates_once(tmp_path: Path) -> None:
    home = tmp_path / "fresh"
    procs = [
        subprocess.Popen([sys.executable, "-c", OPEN_BOTH, str(home)], stderr=subprocess.PIPE)
        for _ in range(8)
    ]
    errors = [p.communicate(timeout=60)[1].decode() for p in procs]
    assert all(p.returncode == 0 for p in procs), errors
    for name, version in (
        ("service.db", len(SERVICE_MIGRATIONS)),
        ("sessions.db", len(SESSION_MIGRATIONS)),
    ):
        with sqlite3.connect(home / name) as conn:
            assert conn.execute("PRAGMA user_version").fetchone()[0] == version


CLAIM_ALL = """
import asyncio, sys
from pathlib import Path
from sleuth.store.service_sqlite import SqliteServiceStore

async def main():
    store = SqliteServiceStore(Path(sys.argv[1]))
    now = float(sys.argv[2])
    await store.admit("acme", now=now, lease_s=600, max_running=1)
    await store.claim_flight("acme", "fp", store.node, now=now, lease_s=600)
    await store.claim_key("acme", "key-1", "fp", now=now, lease_s=600)
    print("claimed", flush=True)
    await asyncio.sleep(600)

asyncio.run(main())
"""


def _claiming(home: Path) -> subprocess.Popen[bytes]:
    """A process holding a run slot, a flight and an Idempotency-Key claim of acme's."""
    child = subprocess.Popen(
        [sys.executable, "-c", CLAIM_ALL, str(home), str(NOW)], stdout=subprocess.PIPE
    )
    assert child.stdout is not None and child.stdout.readline() == b"claimed\n"
    return child


async def test_a_killed_processes_claims_are_void_at_once(tmp_path: Path) -> None:
    """A process that dies (kill -9) holding a run slot, a flight and an Idempotency-Key
    claim: while it lives they hold; once it is dead they are void before their leases end,
    so a restarted server is not refused by its dead self."""
    home = tmp_path / "home"
    child = _claiming(home)
    store = SqliteServiceStore(home)
    try:
        assert isinstance(
            await store.admit("acme", now=NOW + 1, lease_s=60, max_running=1), Refused
        )
        assert not await store.claim_flight("acme", "fp", store.node, now=NOW + 1, lease_s=60)
        assert (
            await store.claim_key("acme", "key-1", "fp", now=NOW + 1, lease_s=60)
        ).state == "running"
        child.kill()
        child.wait(timeout=30)
        assert child.stdout is not None
        child.stdout.close()
        assert isinstance(
            await store.admit("acme", now=NOW + 2, lease_s=60, max_running=1), Admitted
        )
        assert await store.claim_flight("acme", "fp", store.node, now=NOW + 2, lease_s=60)
        assert (
            await store.claim_key("acme", "key-1", "fp", now=NOW + 2, lease_s=60)
        ).state == "new"
    finally:
        await store.aclose()
    assert not list((home / "nodes").glob("*.lock"))  # the dead node's file and ours are gone


async def test_a_new_node_drops_the_claims_of_nodes_that_died_before_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    child = _claiming(home)
    child.kill()
    child.wait(timeout=30)
    assert child.stdout is not None
    child.stdout.close()
    store = SqliteServiceStore(home)
    try:
        store.node  # noqa: B018  (taking this node's lock sweeps the dead ones)
        with sqlite3.connect(home / "service.db") as conn:
            left = [conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                    for t in ("reservations", "flights", "idempotency")]  # fmt: skip
        assert left == [0, 0, 0]
    finally:
        await store.aclose()
