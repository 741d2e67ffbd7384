"""`GET /api/orgs/{org}/runs/{id}/pack` over real HTTP: the pack of the org's run, signed by
the server's key, verifies; another organization gets the 404 of an unknown run."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
from pathlib import Path

import httpx

from sleuth.evidence.sign import create_key
from sleuth.evidence.verify import verify_pack
from tests.server.harness import serving
from tests.testweb.server import TestWeb

Q = "How long does Example Cloud keep audit logs by default?"


def test_a_runs_pack_verifies_and_is_its_orgs_only(testweb_env: TestWeb, sleuth_home: Path) -> None:
    key = create_key(sleuth_home)
    with serving() as served:
        head = {"X-API-Key": served.key("a-corp")}
        asked = httpx.post(f"{served.api}/orgs/a-corp/research", json={"query": Q}, headers=head)
        assert asked.status_code == 200, asked.text
        run_id = asked.json()["session_id"]
        got = httpx.get(f"{served.api}/orgs/a-corp/runs/{run_id}/pack", headers=head)
        assert got.status_code == 200, got.text
        assert got.headers["content-type"] == "application/zip"
        assert f'filename="sleuth-pack-{run_id}.zip"' in got.headers["content-disposition"]
        report = verify_pack(got.content, trusted=frozenset({key.id}))
        assert report.ok, report.findings
        assert report.signature.pinned and report.session["id"] == run_id
        assert len(report.sentences) == asked.json()["verification"]["checked"]

        other = {"X-API-Key": served.key("b-corp")}
        for org in ("a-corp", "b-corp"):
            refused = httpx.get(f"{served.api}/orgs/{org}/runs/{run_id}/pack", headers=other)
            assert refused.status_code == 404 and refused.json()["code"] == "NOT_FOUND"
        doc = httpx.get(f"{served.api}/openapi.json").json()
        assert "application/zip" in str(doc["paths"]["/api/orgs/{org}/runs/{run_id}/pack"])
