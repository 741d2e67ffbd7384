"""The UI shell over real HTTP: pages in three languages, the theme, the assets and the PWA
files, the access password in front of everything, and cross-site posts refused."""

from __future__ import annotations

import pytest

pytest.importorskip("jinja2", reason="the web UI needs sleuth[server]")
import httpx

from sleuth.server.config import ServerConfig
from tests.server.harness import serving

PASSWORD = "hunter2-but-longer"
HTML = {"Accept": "text/html"}


def test_pages_languages_and_theme() -> None:
    with (
        serving(ServerConfig(open_access=True)) as served,
        httpx.Client(base_url=served.base) as client,
    ):
        home = client.get("/", headers=HTML)
        assert home.status_code == 200 and '<html lang="en" data-theme="auto">' in home.text
        assert "script-src 'self'" in home.headers["content-security-policy"]
        switched = client.post(
            "/prefs", data={"lang": "zh-Hans", "theme": "dark", "next": "/settings"}
        )
        assert switched.status_code == 303 and switched.headers["location"] == "/settings"
        page = client.get("/settings", headers=HTML)
        assert '<html lang="zh-Hans" data-theme="dark">' in page.text and "设置" in page.text
        client.post("/prefs", data={"lang": "es", "next": "//evil.example/"})
        spanish = client.get("/", headers={"Accept-Language": "zh"})
        assert "Investigar una pregunta" in spanish.text  # the cookie beats the browser
        bad = client.post("/prefs", data={"lang": "xx", "theme": "neon", "next": "/"})
        assert bad.status_code == 303 and client.get("/").text.count('data-theme="dark"') == 1


def test_assets_manifest_and_service_worker() -> None:
    with (
        serving(ServerConfig(open_access=True)) as served,
        httpx.Client(base_url=served.base) as client,
    ):
        for name, kind in (("app.css", "text/css"), ("app.js", "text/javascript"),
                           ("icon.svg", "image/svg+xml")):  # fmt: skip
            got = client.get(f"/static/{name}")
            assert got.status_code == 200 and got.headers["content-type"].startswith(kind)
        assert client.get("/static/../routes.py").status_code == 404
        assert client.get("/static/nope.js").status_code == 404
        manifest = client.get("/manifest.webmanifest").json()
        assert manifest["start_url"] == "/" and manifest["icons"][0]["src"] == "/static/icon.svg"
        worker = client.get("/sw.js").text
        shell = worker.split("const SHELL = [", 1)[1].split("]", 1)[0]
        assert "/runs" not in shell and "/api" not in shell and '"/"' not in shell


def test_the_password_guards_every_page_and_api_call() -> None:
    """The packaged assets, the PWA files and the API's docs are public (guards.PUBLIC: no
    data); everything else needs the password or a key."""
    with (
        serving(ServerConfig(access_password=PASSWORD)) as served,
        httpx.Client(base_url=served.base) as client,
    ):
        refused = [
            "/", "/settings", "/runs/2026-01-01_000000_00000000", "/api/whoami", "/metrics",
            "/api/orgs/local/runs", "/jobs/x/events", "/history", "/kb",
        ]  # fmt: skip
        public = ["/static/app.css", "/manifest.webmanifest", "/sw.js", "/api/openapi.json"]
        assert all(client.get(path).status_code == 200 for path in public)
        for path in refused:
            got = client.get(path)
            assert got.status_code == 401, (path, got.status_code)
            page = client.get(path, headers=HTML)
            assert page.status_code in (303, 401), path
            assert "Sleuth" not in page.text or "/login" in page.headers.get("location", "")
        assert client.post("/runs", data={"question": "q"}).status_code == 401
        assert client.post("/settings", data={"model": "x"}).status_code == 401
        assert (
            client.get("/api/whoami", headers={"Authorization": "Bearer wrong"}).status_code == 401
        )
        assert client.get("/healthz").status_code == 200  # load balancers; no data
        wrong = client.post("/login", data={"password": "nope", "next": "/"})
        assert wrong.status_code == 401 and "sleuth_ui" not in wrong.cookies
        right = client.post("/login", data={"password": PASSWORD, "next": "/settings"})
        assert right.status_code == 303 and right.headers["location"] == "/settings"
        assert client.get("/settings", headers=HTML).status_code == 200
        assert client.get("/static/app.css").status_code == 200
        key = served.key("acme")  # the API's own credentials pass the gate
        who = httpx.get(served.base + "/api/whoami", headers={"X-API-Key": key})
        assert who.status_code == 200 and who.json()["orgId"] == "acme"


def test_a_keyed_server_without_a_password_refuses_the_ui() -> None:
    with (
        serving(ServerConfig(open_access=False)) as served,
        httpx.Client(base_url=served.base) as client,
    ):
        page = client.get("/", headers=HTML)
        assert page.status_code == 403 and "SLEUTH_ACCESS_PASSWORD" in page.text


def test_cross_site_posts_are_refused() -> None:
    with (
        serving(ServerConfig(open_access=True)) as served,
        httpx.Client(base_url=served.base) as client,
    ):
        evil = {"Origin": "http://evil.example"}
        assert client.post("/runs", data={"question": "q"}, headers=evil).status_code == 403
        assert client.post("/prefs", data={"lang": "es"}, headers=evil).status_code == 403
        mine = client.post("/prefs", data={"lang": "es"}, headers={"Origin": served.base})
        assert mine.status_code == 303


def test_settings_keep_the_key_server_side(tmp_path: object) -> None:
    with (
        serving(ServerConfig(open_access=True)) as served,
        httpx.Client(base_url=served.base) as client,
    ):
        form = {"base_url": "http://127.0.0.1:9/v1", "api_key": "sk-secret-abcd1234", "model": "m1"}
        assert client.post("/settings", data=form).status_code == 303
        page = client.get("/settings").text
        assert "sk-secret" not in page and "…1234" in page and 'value="m1"' in page
        assert client.post("/settings", data={"model": "m2", "api_key": ""}).status_code == 303
        assert served.state.app.home.joinpath("ui.json").stat().st_mode & 0o077 == 0
        kept = client.get("/settings").text
        assert (
            "…1234" in kept and 'value="m2"' in kept and 'value="http://127.0.0.1:9/v1"' not in kept
        )
        bad = client.post("/settings", data={"base_url": "file:///etc/passwd"})
        assert bad.status_code == 400 and "http://" in bad.text
        cleared = client.post("/settings", data={"clear": "api_key"})
        assert cleared.status_code == 303 and "…1234" not in client.get("/settings").text
