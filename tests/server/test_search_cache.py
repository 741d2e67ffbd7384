"""A plain search repeated by the same organization within the result cache's time is answered
from memory (issue 26): no backend call, no slot, not metered as a search; `no_cache` asks the
backend again, and another organization never gets the first one's results."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")

import time
from typing import Any

import httpx

from tests.server.harness import serving
from tests.testweb.server import TestWeb

Q = "Example Cloud audit log retention"


def test_a_repeated_plain_search_comes_from_the_cache(testweb_env: TestWeb) -> None:
    with serving() as served:
        key = {"X-API-Key": served.key("acme")}
        url = f"{served.api}/orgs/acme/search"
        first = httpx.post(url, json={"query": Q, "limit": 5}, headers=key).json()
        again = httpx.post(url, json={"query": f"  {Q} ", "limit": 5}, headers=key).json()
        assert testweb_env.searches.count(Q) == 1
        assert first["cached"] is False and first["usage"] == {"searches": 1, "pages_read": 0}
        assert again["cached"] is True and again["usage"] == {"searches": 0, "pages_read": 0}
        assert again["results"] == first["results"] and first["results"]

        other_limit = httpx.post(url, json={"query": Q, "limit": 3}, headers=key).json()
        assert other_limit["cached"] is False and len(other_limit["results"]) == 3
        refused = httpx.post(url, json={"query": Q, "limit": 5, "no_cache": True}, headers=key)
        assert refused.json()["cached"] is False
        assert testweb_env.searches.count(Q) == 3

        usage = httpx.get(f"{served.api}/orgs/acme/usage", headers=key).json()
        assert usage["meters"]["searches"]["used"] == 3  # the hit spent no search
        assert cached_count(served, key) == 1


def cached_count(served: Any, key: dict[str, str]) -> int:
    """The cached answers a usage report counts, once no batch of them is being written (one
    in the store's writer queue shows when written)."""
    for _ in range(50):
        days = httpx.get(f"{served.api}/orgs/acme/usage", headers=key).json()["days"]
        if count := sum(day["cached"] for day in days):
            return int(count)
        time.sleep(0.1)
    return 0


def test_another_organization_never_gets_the_cached_results(testweb_env: TestWeb) -> None:
    with serving() as served:
        url = f"{served.api}/orgs/{{}}/search"
        body = {"query": Q, "limit": 5}
        acme = httpx.post(url.format("acme"), json=body, headers={"X-API-Key": served.key("acme")})
        globex_key = {"X-API-Key": served.key("globex")}
        globex = httpx.post(url.format("globex"), json=body, headers=globex_key)
        assert acme.json()["cached"] is False and globex.json()["cached"] is False
        assert testweb_env.searches.count(Q) == 2


def test_a_changed_filter_is_another_search(testweb_env: TestWeb) -> None:
    with serving() as served:
        key = {"X-API-Key": served.key("acme")}
        url = f"{served.api}/orgs/acme/search"
        httpx.post(url, json={"query": Q}, headers=key)
        narrowed = {"query": Q, "exclude_domains": ["examplecloud.com"]}
        found = httpx.post(url, json=narrowed, headers=key).json()
        assert found["cached"] is False
        assert all("examplecloud.com" not in r["url"] for r in found["results"])
        assert testweb_env.searches.count(Q) == 2
