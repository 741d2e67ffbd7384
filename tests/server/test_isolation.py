"""One organization never sees another's runs, cache entries or usage: org A's key gets 404 for
every org-B path of every route in the OpenAPI document, and for org B's run ids under its own
path — exactly what an unknown path gets, so nothing is learnt about B."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
import re
from typing import Any

import httpx

from tests.server.harness import Served, serving
from tests.testweb.server import TestWeb

# The service's state on both backends: SQLite, then PostgreSQL (when there is one).
pytestmark = pytest.mark.usefixtures("service_backend")

Q = "How long does Example Cloud keep audit logs by default?"
# A valid body for each request schema in the document; a new one must be added here.
BODIES: dict[str, dict[str, Any]] = {
    "ResearchBody": {"query": Q},
    "SearchBody": {"query": Q},
    "ExtractBody": {"urls": ["http://docs.examplecloud.com/"], "prompt": "retention?"},
    "BatchBody": {"questions": [{"question": Q}]},
}


def operations(served: Served) -> list[tuple[str, str, str | None]]:
    """(method, path template, request body schema name) of every documented operation."""
    doc = httpx.get(f"{served.api}/openapi.json").json()
    found = []
    for path, item in doc["paths"].items():
        for method, op in item.items():
            ref = (
                op.get("requestBody", {}).get("content", {}).get("application/json", {})
                .get("schema", {}).get("$ref")
            )  # fmt: skip
            found.append((method.upper(), path, ref.rsplit("/", 1)[-1] if ref else None))
    return found


def fill(template: str, **params: str) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: params[m.group(1)], template)


def test_org_a_gets_404_for_every_org_b_path_and_id(testweb_env: TestWeb) -> None:
    with serving() as served:
        a = {"X-API-Key": served.key("a-corp")}
        a_search_only = {"X-API-Key": served.key("a-corp", ("search",))}
        b = {"X-API-Key": served.key("b-corp")}
        mine = httpx.post(f"{served.api}/orgs/b-corp/research", json={"query": Q}, headers=b)
        b_run = mine.json()["session_id"]
        assert b_run and httpx.get(f"{served.api}/orgs/b-corp/runs/{b_run}", headers=b).is_success
        runs_before = served.metric("sleuth_runs_total", depth="quick", outcome="ok")

        ops = operations(served)
        org_ops = [op for op in ops if "{org}" in op[1]]
        assert {p for _, p, _ in org_ops} >= {
            "/api/orgs/{org}/research", "/api/orgs/{org}/search", "/api/orgs/{org}/extract",
            "/api/orgs/{org}/usage", "/api/orgs/{org}/runs", "/api/orgs/{org}/runs/{run_id}",
        }  # fmt: skip
        for method, path, schema in org_ops:
            body = BODIES[schema] if schema else None
            for org, headers in (("b-corp", a), ("b-corp", a_search_only), ("nobody", a)):
                url = served.base + fill(
                    path, org=org, run_id=b_run, path="upload/x.pdf", batch_id="b_0"
                )
                got = httpx.request(method, url, json=body, headers=headers)
                assert got.status_code == 404, (method, path, org, got.text)
                assert got.json()["code"] == "NOT_FOUND" and b_run not in got.text
            if "{run_id}" in path:  # B's id under A's own organization: unknown too
                url = served.base + fill(
                    path, org="a-corp", run_id=b_run, path="upload/x", batch_id="b"
                )
                assert httpx.request(method, url, headers=a).status_code == 404
        # Nothing ran for A, and A's usage and runs show nothing of B's.
        assert served.metric("sleuth_runs_total", depth="quick", outcome="ok") == runs_before
        assert httpx.get(f"{served.api}/orgs/a-corp/runs", headers=a).json() == {"runs": []}
        usage = httpx.get(f"{served.api}/orgs/a-corp/usage", headers=a).json()
        assert usage["meters"]["searches"]["used"] == 0 and usage["days"] == []


def test_the_cache_is_per_organization(testweb_env: TestWeb) -> None:
    with serving() as served:
        for org in ("a-corp", "b-corp"):
            headers = {"X-API-Key": served.key(org)}
            got = httpx.post(f"{served.api}/orgs/{org}/research", json={"query": Q},
                             headers=headers)  # fmt: skip
            assert got.json()["cached"] is False
