"""`GET /api/orgs/{org}/runs/{id}/graph`: a run's graph over real HTTP, for its org only."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
import httpx

from tests.server.harness import serving
from tests.testweb.server import TestWeb

Q = "How long does Example Cloud keep audit logs by default?"


def test_a_runs_graph_in_three_formats_and_never_to_another_org(testweb_env: TestWeb) -> None:
    with serving() as served:
        head = {"X-API-Key": served.key("a-corp")}
        asked = httpx.post(f"{served.api}/orgs/a-corp/research", json={"query": Q}, headers=head)
        assert asked.status_code == 200, asked.text
        run_id = asked.json()["session_id"]
        url = f"{served.api}/orgs/a-corp/runs/{run_id}/graph"
        data = httpx.get(url, headers=head)
        assert data.status_code == 200, data.text
        graph = data.json()
        cited = {c["number"] for c in asked.json()["citations"]}
        assert graph["session_id"] == run_id and graph["method"] == "cooccurrence"
        assert graph["edges"] and all(set(e["citations"]) <= cited for e in graph["edges"])
        svg = httpx.get(url, params={"format": "svg"}, headers=head)
        assert svg.headers["content-type"] == "image/svg+xml"
        assert "default-src 'none'" in svg.headers["content-security-policy"]
        hrefs = [
            a.get("href") for a in ET.fromstring(svg.text).iter("{http://www.w3.org/2000/svg}a")
        ]
        assert hrefs and all(h and h.startswith("#cite-") for h in hrefs)
        mermaid = httpx.get(url, params={"format": "mermaid"}, headers=head)
        assert mermaid.text.startswith("flowchart LR")
        other = {"X-API-Key": served.key("b-corp")}
        stolen = httpx.get(f"{served.api}/orgs/b-corp/runs/{run_id}/graph", headers=other)
        assert stolen.status_code == 404 and stolen.json()["code"] == "NOT_FOUND"
        assert httpx.get(url, headers=other).status_code == 404  # not b-corp's org path
        bad = httpx.get(url, params={"format": "png"}, headers=head)
        assert bad.status_code == 400
