"""Search filters applied like a run's (domain lists, freshness), and a server with open
access (no keys created, loopback): every request is the organization `local`."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
from urllib.parse import urlsplit

import httpx

from sleuth.server.config import ServerConfig
from tests.server.harness import serving
from tests.testweb.server import TestWeb

Q = "Example Cloud audit log retention"


def test_search_applies_domain_lists_and_freshness(testweb_env: TestWeb) -> None:
    with serving() as served:
        headers = {"X-API-Key": served.key("acme")}
        url = f"{served.api}/orgs/acme/search"
        everything = httpx.post(url, json={"query": Q}, headers=headers).json()["results"]
        hosts = {urlsplit(r["url"]).hostname for r in everything}
        assert any(h and h.endswith("examplecloud.com") for h in hosts)
        body = {"query": Q, "exclude_domains": ["examplecloud.com"]}
        kept = httpx.post(url, json=body, headers=headers).json()["results"]
        assert kept and all(not urlsplit(r["url"]).hostname.endswith("examplecloud.com")
                            for r in kept)  # fmt: skip
        only = {"query": Q, "include_domains": ["docs.examplecloud.com"]}
        docs = httpx.post(url, json=only, headers=headers).json()["results"]
        assert docs and {urlsplit(r["url"]).hostname for r in docs} == {"docs.examplecloud.com"}
        recent = {"query": Q, "freshness": "2030-01-01to2030-12-31"}
        fresh = httpx.post(url, json=recent, headers=headers).json()["results"]
        dated = [r for r in everything if "published" in r]
        assert dated and fresh  # the dated pages (all older) go; undated ones stay
        assert not any("published" in r for r in fresh)
        scores = [r["score"] for r in everything]
        assert scores == sorted(scores, reverse=True) and scores[0] == 1.0


def test_open_access_serves_the_local_org_without_a_key(testweb_env: TestWeb) -> None:
    with serving(ServerConfig(open_access=True)) as served:
        me = httpx.get(f"{served.api}/whoami").json()
        assert me == {"orgId": "local", "scopes": ["research", "search", "extract"], "plan": "open"}
        url = f"{served.api}/orgs/local/research"
        answer = httpx.post(url, json={"query": "How long does Example Cloud keep audit logs?"})
        assert answer.status_code == 200 and answer.json()["citations"]
        assert httpx.get(f"{served.api}/orgs/other/usage").status_code == 404
        assert len(served.store.sessions.list(org="local")) == 1
