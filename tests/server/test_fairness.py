"""A flood from one organization cannot starve another's single request: the organization's own
running-run limit is checked before a node slot is taken, so the flood's excess is refused at
once (429, with a Retry-After) and never holds a slot another organization's request needs.
(One org firing 40 requests made another org's single request fail with 503 in 2 of 5 rounds.)"""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
import asyncio

import httpx

from sleuth.server.config import ServerConfig
from tests.server.harness import Served, serving
from tests.testweb.server import TestWeb

Q = "How long does Example Cloud keep audit logs by default?"
ROUNDS, FLOOD = 5, 40


async def _round(
    served: Served, flood_key: str, single_key: str, n: int
) -> tuple[list[httpx.Response], httpx.Response]:
    url = f"{served.api}/orgs/%s/research"
    async with httpx.AsyncClient(timeout=120) as http:
        flood = [
            asyncio.create_task(http.post(url % "flood", json={"query": f"{Q} r{n} f{i}"},
                                          headers={"X-API-Key": flood_key}))
            for i in range(FLOOD)
        ]  # fmt: skip
        await asyncio.sleep(0.2)  # the flood is in: its runs hold what it may hold
        single = await http.post(url % "single", json={"query": f"{Q} r{n} single"},
                                 headers={"X-API-Key": single_key})  # fmt: skip
        return list(await asyncio.gather(*flood)), single


def test_a_flooding_org_cannot_starve_another_orgs_single_request(testweb_env: TestWeb) -> None:
    for host in ("docs.examplecloud.com", "blog.examplecloud.com", "www.examplecloud.com"):
        testweb_env.add_fault(host, delay_s=1.0)  # runs last long enough to overlap
    with serving(ServerConfig(run_slots=4, org_runs=2)) as served:
        flood_key, single_key = served.key("flood"), served.key("single")
        for n in range(ROUNDS):
            flood, single = asyncio.run(_round(served, flood_key, single_key, n))
            assert single.status_code == 200, (n, single.text)
            refused = [r for r in flood if r.status_code != 200]
            assert {r.status_code for r in refused} <= {429}, [r.text for r in refused]
            assert all(int(r.headers["retry-after"]) >= 1 for r in refused)
            assert sum(r.status_code == 200 for r in flood) >= 2  # the flood got its share
