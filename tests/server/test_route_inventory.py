"""The route inventory (issues 23 and 24): every route of the app, with each method, is listed
here with its guard and its origin rule, and checked over real HTTP: on a keyed server every
route but the public ones refuses a caller without credentials; with a password, the UI asks
for it. A route added without a guard, or not added to this list, fails here — and
`create_app` itself refuses a bare route that `guards.PUBLIC` does not name."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server]")
import httpx
from fastapi import APIRouter

from sleuth.server import guards
from sleuth.server.app import create_app
from sleuth.server.config import ServerConfig
from sleuth.server.routes import meta
from tests.server.harness import Served, serving

PASSWORD = "inventory-password-long-enough"
# (method, path, guard, origin rule). Guards: key (an API key, the password as a bearer
# token, or an open server), research (the same with the research scope), ticket (a one-use
# SSE ticket), ui (an open server or a login session), operator (the metrics token or the
# password), public (guards.PUBLIC). Origin rules (edge.py): same-origin (a state change: no
# request from another site), no-embedding (a read: another site may only link to it),
# by-method (a mount: by the request's method).
INVENTORY = [
    ("GET", "/", "ui", "no-embedding"),
    ("GET", "/api/docs", "public", "no-embedding"),
    ("*", "/api/docs/static", "public", "by-method"),
    ("DELETE", "/api/mcp", "research", "same-origin"),
    ("GET", "/api/mcp", "research", "no-embedding"),
    ("HEAD", "/api/mcp", "research", "no-embedding"),
    ("POST", "/api/mcp", "research", "same-origin"),
    ("GET", "/api/mcp/sse", "research", "no-embedding"),
    ("HEAD", "/api/mcp/sse", "research", "no-embedding"),
    ("POST", "/api/mcp/sse/messages/", "research", "same-origin"),
    ("GET", "/api/openapi.json", "public", "no-embedding"),
    ("HEAD", "/api/openapi.json", "public", "no-embedding"),
    ("POST", "/api/orgs/{org}/batches", "key", "same-origin"),
    ("GET", "/api/orgs/{org}/batches/{batch_id}", "key", "no-embedding"),
    ("GET", "/api/orgs/{org}/batches/{batch_id}/results", "key", "no-embedding"),
    ("POST", "/api/orgs/{org}/extract", "key", "same-origin"),
    ("GET", "/api/orgs/{org}/kb", "key", "no-embedding"),
    ("GET", "/api/orgs/{org}/kb/files", "key", "no-embedding"),
    ("POST", "/api/orgs/{org}/kb/files", "key", "same-origin"),
    ("DELETE", "/api/orgs/{org}/kb/files/{path:path}", "key", "same-origin"),
    ("POST", "/api/orgs/{org}/research", "key", "same-origin"),
    ("GET", "/api/orgs/{org}/model", "key", "no-embedding"),
    ("GET", "/api/orgs/{org}/runs", "key", "no-embedding"),
    ("GET", "/api/orgs/{org}/runs/{run_id}", "key", "no-embedding"),
    ("GET", "/api/orgs/{org}/runs/{run_id}/graph", "key", "no-embedding"),
    ("GET", "/api/orgs/{org}/runs/{run_id}/pack", "key", "no-embedding"),
    ("POST", "/api/orgs/{org}/search", "key", "same-origin"),
    ("GET", "/api/orgs/{org}/usage", "key", "no-embedding"),
    ("POST", "/api/sse", "research", "same-origin"),
    ("GET", "/api/sse/live", "ticket", "no-embedding"),
    ("POST", "/api/sse/ticket", "research", "same-origin"),
    ("GET", "/api/whoami", "key", "no-embedding"),
    ("GET", "/docs/oauth2-redirect", "public", "no-embedding"),
    ("GET", "/healthz", "public", "no-embedding"),
    ("GET", "/history", "ui", "no-embedding"),
    ("GET", "/history/diff", "ui", "no-embedding"),
    ("POST", "/history/{session_id}/continue", "ui", "same-origin"),
    ("POST", "/history/{session_id}/delete", "ui", "same-origin"),
    ("POST", "/history/{session_id}/rerun", "ui", "same-origin"),
    ("POST", "/history/{session_id}/tags", "ui", "same-origin"),
    ("POST", "/history/{session_id}/untag", "ui", "same-origin"),
    ("POST", "/jobs/{job_id}/cancel", "ui", "same-origin"),
    ("GET", "/jobs/{job_id}/events", "ui", "no-embedding"),
    ("GET", "/kb", "ui", "no-embedding"),
    ("POST", "/kb/files", "ui", "same-origin"),
    ("POST", "/kb/remove", "ui", "same-origin"),
    ("GET", "/login", "public", "no-embedding"),
    ("POST", "/login", "public", "same-origin"),
    ("POST", "/logout", "public", "same-origin"),
    ("GET", "/manifest.webmanifest", "public", "no-embedding"),
    ("GET", "/metrics", "operator", "no-embedding"),
    ("POST", "/prefs", "ui", "same-origin"),
    ("GET", "/readyz", "public", "no-embedding"),
    ("POST", "/runs", "ui", "same-origin"),
    ("GET", "/runs/{session_id}", "ui", "no-embedding"),
    ("POST", "/runs/{session_id}/back", "ui", "same-origin"),
    ("GET", "/runs/{session_id}/edit", "ui", "no-embedding"),
    ("POST", "/runs/{session_id}/explore", "ui", "same-origin"),
    ("GET", "/runs/{session_id}/export.{fmt}", "ui", "no-embedding"),
    ("GET", "/runs/{session_id}/graph", "ui", "no-embedding"),
    ("GET", "/runs/{session_id}/graph.{fmt}", "ui", "no-embedding"),
    ("POST", "/runs/{session_id}/plan", "ui", "same-origin"),
    ("POST", "/runs/{session_id}/preview", "ui", "same-origin"),
    ("POST", "/runs/{session_id}/revisions", "ui", "same-origin"),
    ("POST", "/runs/{session_id}/transform", "ui", "same-origin"),
    ("POST", "/runs/{session_id}/write", "ui", "same-origin"),
    ("GET", "/settings", "ui", "no-embedding"),
    ("POST", "/settings", "ui", "same-origin"),
    ("GET", "/static/{name}", "public", "no-embedding"),
    ("GET", "/sw.js", "public", "no-embedding"),
    ("POST", "/v1/chat/completions", "key", "same-origin"),
    ("GET", "/v1/models", "key", "no-embedding"),
]
PARAMS = {
    "{org}": "local", "{run_id}": "x", "{session_id}": "x", "{job_id}": "x", "{batch_id}": "x",
    "{path:path}": "a.txt", "{fmt}": "json", "{name}": "app.css",
}  # fmt: skip


def concrete(path: str) -> str:
    for name, value in PARAMS.items():
        path = path.replace(name, value)
    return path


def test_every_route_is_listed_with_its_guard_and_origin_rule() -> None:
    app = create_app(ServerConfig())
    found = sorted((e.method, e.path, e.guard, e.origin) for e in guards.inventory(app))
    assert found == sorted(INVENTORY)
    public = {path for _, path, guard, _ in INVENTORY if guard == "public"}
    assert public == set(guards.PUBLIC)


GUARDED = [(m, p, g) for m, p, g, _ in INVENTORY if g != "public" and m != "*"]


def refusals(served: Served) -> dict[tuple[str, str, str], int]:
    """Every guarded route and method called without credentials: its status, by guard."""
    with httpx.Client(base_url=served.base, timeout=30) as client:
        return {(m, p, g): client.request(m, concrete(p)).status_code for m, p, g in GUARDED}


def test_a_keyed_server_refuses_every_guarded_route_without_credentials() -> None:
    """On today's main an anonymous POST /settings rewrote the UI's model endpoint (and
    /runs/{id}/preview and /transform answered) on a server that refused GET /."""
    with serving(ServerConfig(open_access=False)) as served:
        for (method, path, guard), status in refusals(served).items():
            # the UI on a keyed server without a password: a page saying how to turn it on
            assert status == (403 if guard == "ui" else 401), (method, path, status)
        evil = {"base_url": "http://evil.example/v1"}
        assert httpx.post(served.base + "/settings", data=evil).status_code == 403
        assert not served.state.app.home.joinpath("ui.json").exists()
        for method, path, guard, _ in INVENTORY:
            if guard == "public" and method == "GET" and "{" not in path:
                assert httpx.get(served.base + path).status_code == 200, path


def test_with_a_password_every_guarded_route_asks_for_it() -> None:
    with serving(ServerConfig(access_password=PASSWORD)) as served:
        for route, status in refusals(served).items():
            assert status == 401, (route, status)  # the UI's JSON 401, the API's 401
        page = httpx.get(served.base + "/settings", headers={"Accept": "text/html"})
        assert page.status_code == 303 and page.headers["location"] == "/login?next=/settings"


def test_a_route_added_to_a_guarded_router_is_guarded() -> None:
    @meta.router.get("/api/orgs/{org}/added-later")
    async def added_later(org: str) -> dict[str, str]:
        return {"org": org}

    try:
        with serving(ServerConfig(open_access=False)) as served:
            got = httpx.get(served.base + "/api/orgs/local/added-later")
            assert got.status_code == 401 and got.json()["code"] == "UNAUTHORIZED"
    finally:
        meta.router.routes.pop()
    assert not any(getattr(r, "path", "").endswith("added-later") for r in meta.router.routes)


def test_an_app_with_a_bare_route_is_refused() -> None:
    app = create_app(ServerConfig())
    bare = APIRouter()

    @bare.post("/api/orgs/{org}/forgotten")
    async def forgotten(org: str) -> dict[str, str]:
        return {"org": org}

    app.include_router(bare)
    with pytest.raises(RuntimeError, match="forgotten"):
        guards.verify(app)
