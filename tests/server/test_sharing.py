"""50 identical concurrent requests from one organization share one engine run; a minute
later (clock injected) the answer comes from the cache, unmetered; after 10 minutes it runs
again. Requests that differ, or other organizations, never share."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
pytest.importorskip("xdive", reason="the server tests need sleuth[server] and the dev extra")
import asyncio
import time
from collections.abc import Callable

import httpx
from xdive import AsyncXDive

from tests.server.harness import Served, serving
from tests.testweb.server import TestWeb

# The service's state on both backends: SQLite, then PostgreSQL (when there is one).
pytestmark = pytest.mark.usefixtures("service_backend")

Q = "How long does Example Cloud keep audit logs by default?"


def runs(served: Served) -> float:
    return served.metric("sleuth_runs_total", depth="quick", outcome="ok")


async def _research_many(served: Served, key: str, n: int) -> list[dict]:
    async with AsyncXDive(key, base_url=served.api, org_id="acme", timeout=60) as client:
        return list(await asyncio.gather(*(client.research(Q) for _ in range(n))))


def usage(served: Served, key: str) -> dict:
    response = httpx.get(f"{served.api}/orgs/acme/usage", headers={"X-API-Key": key})
    response.raise_for_status()
    return response.json()


def test_fifty_identical_requests_share_one_run_then_the_cache_then_run_again(
    testweb_env: TestWeb,
) -> None:
    with serving() as served:
        key = served.key("acme")
        answers = asyncio.run(_research_many(served, key, 50))
        assert runs(served) == 1
        assert len(testweb_env.searches) == 1  # the engine searched once for all 50
        assert len({a["session_id"] for a in answers}) == 1
        assert all(a == answers[0] for a in answers) and answers[0]["cached"] is False
        assert "[1]" in answers[0]["answer"] and answers[0]["citations"]
        assert len(served.store.sessions.list(org="acme")) == 1
        spent = usage(served, key)["meters"]
        assert spent["searches"]["used"] == answers[0]["usage"]["searches"] >= 1

        served.clock.advance(60)
        (later,) = asyncio.run(_research_many(served, key, 1))
        assert later["cached"] is True and runs(served) == 1
        assert {k: v for k, v in later.items() if k != "cached"} == {
            k: v for k, v in answers[0].items() if k != "cached"
        }
        assert usage(served, key)["meters"] == spent  # a cached answer costs nothing
        assert wait_until(lambda: usage(served, key)["days"][0]["cached"] == 1)

        served.clock.advance(10 * 60)
        (fresh,) = asyncio.run(_research_many(served, key, 1))
        assert fresh["cached"] is False and runs(served) == 2
        assert fresh["session_id"] != answers[0]["session_id"]
        assert usage(served, key)["meters"]["searches"]["used"] > spent["searches"]["used"]


@pytest.mark.parametrize(
    "variant",
    [{"query": "  " + Q + "  "}, {"query": Q, "output": "answer"}, {"query": Q, "depth": "quick"}],
)
def test_defaults_and_whitespace_make_the_same_request(testweb_env: TestWeb, variant: dict) -> None:
    with serving() as served:
        key = served.key("acme")
        headers = {"X-API-Key": key}
        first = httpx.post(f"{served.api}/orgs/acme/research", json={"query": Q}, headers=headers)
        again = httpx.post(f"{served.api}/orgs/acme/research", json=variant, headers=headers)
        assert first.json()["cached"] is False and again.json()["cached"] is True
        assert runs(served) == 1


def test_no_cache_other_options_and_other_orgs_run_afresh(testweb_env: TestWeb) -> None:
    with serving() as served:
        a, b = served.key("acme"), served.key("globex")
        url = f"{served.api}/orgs/%s/research"
        httpx.post(url % "acme", json={"query": Q}, headers={"X-API-Key": a})
        forced = httpx.post(url % "acme", json={"query": Q, "no_cache": True},
                            headers={"X-API-Key": a})  # fmt: skip
        other = httpx.post(url % "acme", json={"query": Q, "max_sources": 2},
                           headers={"X-API-Key": a})  # fmt: skip
        theirs = httpx.post(url % "globex", json={"query": Q}, headers={"X-API-Key": b})
        assert [r.json()["cached"] for r in (forced, other, theirs)] == [False, False, False]
        assert runs(served) == 4
        assert len(served.store.sessions.list(org="globex")) == 1


def test_failed_runs_are_not_cached(testweb_env: TestWeb) -> None:
    testweb_env.script_search("nothing here", [])
    with serving() as served:
        headers = {"X-API-Key": served.key("acme")}
        body = {"query": "nothing here at all"}
        url = f"{served.api}/orgs/acme/research"
        first, second = (httpx.post(url, json=body, headers=headers) for _ in range(2))
        assert first.status_code == second.status_code == 422
        assert first.json()["code"] == "NO_SOURCES" and first.json()["success"] is False
        assert served.metric("sleuth_runs_total", depth="quick", outcome="failed") == 2


def test_no_cache_reuses_nothing_cached_and_its_answer_serves_the_next_request(
    testweb_env: TestWeb,
) -> None:
    """`no_cache` means what the CLI's `--no-cache` means: nothing cached is reused — no
    answer from the result cache, no page from the page cache — and the fresh answer is what
    the next identical request gets."""
    with serving() as served:
        headers = {"X-API-Key": served.key("acme")}
        url = f"{served.api}/orgs/acme/research"
        first = httpx.post(url, json={"query": Q}, headers=headers).json()
        page = first["citations"][0]["url"]
        read = testweb_env.hits.count(page)
        fresh = httpx.post(url, json={"query": Q, "no_cache": True}, headers=headers).json()
        assert fresh["cached"] is False and testweb_env.hits.count(page) == read + 1
        after = httpx.post(url, json={"query": Q}, headers=headers).json()
        assert after["cached"] is True and after["session_id"] == fresh["session_id"]


def wait_until(check: Callable[[], bool], seconds: float = 5.0) -> bool:
    """True once `check` holds (a batch of cached answers in the store's writer queue shows
    in the usage report when written)."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True
