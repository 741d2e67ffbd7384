"""A request that missed the cache just before another replica finished the same question must
not run it again when it wins the (now free) claim: seen with two replicas behind nginx as 42
engine runs for 41 distinct questions. The race is made deterministic here: the store answers
the request's first cache read with a miss, as a read taken before the other run's write."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
import httpx

from sleuth.store.service import Cached
from sleuth.store.service_sqlite import SqliteServiceStore
from tests.server.harness import serving
from tests.testweb.server import TestWeb

Q = "How long does Example Cloud keep audit logs by default?"


class LateReadStore(SqliteServiceStore):
    """The next `cached` read after `miss_once()` misses, whatever the cache holds."""

    missing = False

    def miss_once(self) -> None:
        self.missing = True

    async def cached(
        self, org: str, fingerprint: str, *, now: float, ttl_s: float
    ) -> Cached | None:
        if self.missing:
            self.missing = False
            return None
        found: Cached | None = await super().cached(org, fingerprint, now=now, ttl_s=ttl_s)
        return found


def test_a_claim_won_after_the_run_ended_reads_its_result_instead_of_running_again(
    testweb_env: TestWeb,
) -> None:
    with serving(store_type=LateReadStore) as served:
        headers = {"X-API-Key": served.key("acme")}
        url = f"{served.api}/orgs/acme/research"
        first = httpx.post(url, json={"query": Q}, headers=headers, timeout=60)
        assert first.status_code == 200 and first.json()["cached"] is False
        assert len(testweb_env.searches) == 1
        assert isinstance(served.store, LateReadStore)
        served.store.miss_once()
        second = httpx.post(url, json={"query": Q}, headers=headers, timeout=60)
        assert second.status_code == 200, second.text
        assert len(testweb_env.searches) == 1  # the question was not searched again
        assert second.json()["cached"] is True
        assert second.json()["session_id"] == first.json()["session_id"]
        again = httpx.post(url, json={"query": Q}, headers=headers, timeout=60)
        assert again.json()["cached"] is True  # the claim taken on the way was let go
