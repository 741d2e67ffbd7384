"""A quota is a hard cap, however many runs go at once: each run reserves what it may read
before it reads, and a run that reaches its allowance ends with what it has and says so (the
next request is a 402). (Ten concurrent runs against a quota of 3 pages once read 6.)"""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
import asyncio

import httpx

from tests.server.harness import serving
from tests.testweb.server import TestWeb

pytestmark = pytest.mark.usefixtures("service_backend")
Q = "How long does Example Cloud keep audit logs by default?"


async def _ten(api: str, key: str) -> list[httpx.Response]:
    headers = {"X-API-Key": key}
    async with httpx.AsyncClient(timeout=60) as http:
        return list(
            await asyncio.gather(
                *(
                    http.post(f"{api}/orgs/acme/research",
                              json={"query": f"{Q} ({n})", "no_cache": True}, headers=headers)
                    for n in range(10)
                )
            )
        )  # fmt: skip


def test_ten_concurrent_runs_never_read_past_a_page_quota(testweb_env: TestWeb) -> None:
    with serving() as served:
        key = served.key("acme", pages=3)
        answers = asyncio.run(_ten(served.api, key))
        statuses = sorted({r.status_code for r in answers})
        assert set(statuses) <= {200, 402, 429}, [r.text for r in answers]
        read = sum(r.json()["usage"]["pages_read"] for r in answers if r.status_code == 200)
        used = httpx.get(f"{served.api}/orgs/acme/usage", headers={"X-API-Key": key}).json()
        assert read <= 3 and used["meters"]["pages_read"]["used"] <= 3
        held = [
            r.json() for r in answers
            if r.status_code == 200 and any("quota held back" in reason
                                            for reason in r.json()["confidence_reasons"])
        ]  # fmt: skip
        assert held, "a run stopped by the quota says so in its result"
        after = httpx.post(f"{served.api}/orgs/acme/research", json={"query": Q + " again"},
                           headers={"X-API-Key": key})  # fmt: skip
        assert after.status_code == 402 and after.json()["code"] == "QUOTA_EXCEEDED"
