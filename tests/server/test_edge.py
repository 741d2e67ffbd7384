"""The edge every request passes (issue 24, findings 3 and 4): a Host that is not this server's
is refused on every route (DNS rebinding), a state change from another site is refused on every
route in every mode, API included, a read cannot be embedded by another site, and no run starts
from a GET a page can embed."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server]")
import asyncio

import httpx

from sleuth.server.config import ServerConfig
from tests.server.harness import serving
from tests.server.test_route_inventory import INVENTORY, concrete
from tests.testweb.server import TestWeb

OPEN = ServerConfig(open_access=True)
EVIL = "http://evil.example"


def test_a_rebound_host_is_refused_on_every_route() -> None:
    """After DNS rebinding, Host and Origin both say evil.example: on today's main POST
    /settings, /history and /api/orgs/local/runs all answered."""
    rebound = {"Host": "evil.example:8000", "Origin": "http://evil.example:8000"}
    with serving(OPEN) as served, httpx.Client(base_url=served.base, timeout=30) as client:
        for method, path, _, _ in INVENTORY:
            if method == "*":
                continue
            got = client.request(method, concrete(path), headers=rebound)
            assert got.status_code == 400, (method, path, got.status_code)
            assert method == "HEAD" or got.json()["code"] == "HOST_NOT_ALLOWED"
        assert not served.state.app.home.joinpath("ui.json").exists()
        for host in ("127.0.0.1", "localhost", "[::1]"):
            port = served.base.rsplit(":", 1)[1]
            assert client.get("/healthz", headers={"Host": f"{host}:{port}"}).status_code == 200


def test_the_operator_adds_the_names_people_use() -> None:
    config = ServerConfig(open_access=False, allowed_hosts=("sleuth.example.com",))
    with serving(config) as served:
        named = httpx.get(served.base + "/healthz", headers={"Host": "Sleuth.Example.com"})
        assert named.status_code == 200
        other = httpx.get(served.base + "/healthz", headers={"Host": "other.example.com"})
        assert other.status_code == 400 and "SLEUTH_ALLOWED_HOSTS" in other.json()["error"]


def test_every_state_change_from_another_site_is_refused_in_open_mode() -> None:
    """On today's main a cross-site multipart post to the knowledge base was stored (201)."""
    foreign = [
        {"Origin": EVIL},
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},  # another port of this host is another origin
    ]
    with serving(OPEN) as served, httpx.Client(base_url=served.base, timeout=30) as client:
        for method, path, _, origin in INVENTORY:
            if origin != "same-origin":
                continue
            for headers in foreign:
                got = client.request(method, concrete(path), headers=headers)
                assert got.status_code == 403, (method, path, headers, got.status_code)
                assert got.json()["code"] == "CROSS_SITE"
        upload = {"file": ("memo.txt", b"the quarterly numbers", "text/plain")}
        got = client.post("/api/orgs/local/kb/files", files=upload, headers={"Origin": EVIL})
        assert got.status_code == 403
        assert asyncio.run(served.state.app.knowledge.bases("local")) == []
        mine = client.post("/prefs", data={"lang": "es"}, headers={"Origin": served.base})
        assert mine.status_code == 303
        tls = served.base.replace("http://", "https://")  # a TLS proxy nobody declared
        hint = client.post("/prefs", data={"lang": "es"}, headers={"Origin": tls}).json()
        assert hint["code"] == "CROSS_SITE" and "trusted_proxies" in hint["error"]
        own = {"Origin": served.base, "Sec-Fetch-Site": "same-origin"}
        assert client.post("/api/orgs/local/kb/files", files=upload, headers=own).status_code == 201


def test_another_site_may_link_to_a_page_but_not_embed_or_fetch_it() -> None:
    linked = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate",
              "Sec-Fetch-Dest": "document"}  # fmt: skip
    embedded = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors",
                "Sec-Fetch-Dest": "image"}  # fmt: skip
    framed = {**linked, "Sec-Fetch-Dest": "iframe"}
    with serving(OPEN) as served, httpx.Client(base_url=served.base, timeout=30) as client:
        assert client.get("/", headers=linked).status_code == 200
        for headers in (embedded, framed):
            assert client.get("/", headers=headers).status_code == 403
            assert client.get("/api/orgs/local/runs", headers=headers).status_code == 403


def test_no_run_starts_from_a_get_a_page_can_embed(testweb_env: TestWeb) -> None:
    """On today's main `GET /api/sse/live?query=...` from an <img> started a run on an open
    server; now the live URL needs a one-use ticket, which only a POST with the caller's
    credential (or from this server's own pages, on an open one) gets."""
    params = {"query": "How long does Example Cloud keep audit logs?"}
    with serving(OPEN) as served:
        plain = httpx.get(served.base + "/api/sse/live", params=params)
        assert plain.status_code == 401 and "ticket" in plain.json()["error"]
        img = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Dest": "image"}
        embedded = httpx.get(served.base + "/api/sse/live", params=params, headers=img)
        assert embedded.status_code == 403
        forged = httpx.post(served.base + "/api/sse/ticket", headers={"Origin": EVIL})
        assert forged.status_code == 403
        assert testweb_env.searches == []
        ticket = httpx.post(served.base + "/api/sse/ticket").json()["ticket"]
        url = served.base + "/api/sse/live"
        with httpx.stream("GET", url, params={**params, "ticket": ticket}, timeout=60) as r:
            assert r.status_code == 200 and next(r.iter_lines()) == "event: infor"


def test_no_key_or_password_is_taken_from_a_url() -> None:
    with serving(ServerConfig(open_access=False, access_password="a-long-password")) as s:
        key = s.key("acme")
        for query in ({"api_key": key}, {"key": key}, {"password": "a-long-password"},
                      {"token": key}, {"access_token": key}):  # fmt: skip
            assert httpx.get(s.base + "/api/whoami", params=query).status_code == 401
            assert httpx.get(s.base + "/api/sse/live", params=query).status_code == 401
            assert httpx.get(s.base + "/metrics", params=query).status_code == 401
        assert httpx.get(s.base + "/api/whoami", headers={"X-API-Key": key}).status_code == 200
