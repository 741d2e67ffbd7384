"""Browser reading against the loopback test web with the real system Chromium.

One recording web serves every page, both directly (`http://127.0.0.1:PORT/...`) and as the
forward proxy for public-looking hosts; the SSRF tests prove on the server side that refused
URLs were never requested. Browsers are launched once per module: they are the slow part.
"""

from __future__ import annotations

import asyncio
import importlib.util
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx2
import pytest
import pytest_asyncio

from sleuth.errors import BlockedURLError, FetchError
from sleuth.fetch import FetchSettings, HttpFetcher
from sleuth.fetch.browser import (
    BrowserFallbackFetcher,
    BrowserFetcher,
    BrowserSettings,
    probe_browser,
)
from sleuth.fetch.guard import GuardPolicy
from sleuth.fetch.guard_proxy import GuardProxy
from tests.fetch.web import RecordingWeb, Reply

# One event loop for the module, so the module-scoped browsers can be shared by the tests.
module_loop = pytest.mark.asyncio(loop_scope="module")

CHROMIUM = next(
    (p for n in ("chromium", "chromium-browser", "google-chrome") if (p := shutil.which(n))), None
)
HAVE_PLAYWRIGHT = importlib.util.find_spec("playwright") is not None
PARAGRAPHS = [
    "Zebrafish can regenerate up to a fifth of their heart ventricle within two months of injury.",
    "Researchers traced the regrowth to heart muscle cells that divide again after damage.",
    "The same cells in adult mammals stop dividing shortly after birth, which limits their repair.",
    "Signals from the outer layer of the heart, the epicardium, guide the new muscle into place.",
    "Blocking those signals in the fish leaves a scar instead of new tissue, much as in humans.",
]
ARTICLE = "".join(f"<p>{p}</p>" for p in PARAGRAPHS)
JS_ONLY = f"""<!doctype html><html><head><title>Heart regeneration</title></head><body>
<main id="app">Loading…</main>
<script>
  const paragraphs = {PARAGRAPHS!r};
  const article = document.createElement("article");
  article.innerHTML = "<h1>Heart regeneration in zebrafish</h1>" +
    paragraphs.map(p => "<p>" + p + "</p>").join("");
  document.getElementById("app").replaceWith(article);
</script></body></html>"""
STATIC = f"""<!doctype html><html><head><title>Static heart page</title></head><body>
<article><h1>Heart regeneration, server-rendered</h1>{ARTICLE}</article></body></html>"""


def hostile_page(port: int) -> str:
    """Readable on its own, but its script and markup try to reach private addresses."""
    return f"""<!doctype html><html><head><title>Hostile page</title></head><body>
<article><h1>A page that probes the reader</h1>{ARTICLE}</article>
<iframe src="http://[::1]:{port}/secret?via=iframe"></iframe>
<script>
  for (const u of ["http://127.0.0.1:{port}/secret?via=fetch",
                   "http://169.254.169.254/latest/meta-data/",
                   "http://2130706433:{port}/secret?via=decimal",
                   "http://hostile.example/hop"]) {{
    fetch(u, {{mode: "no-cors"}}).catch(() => null);
  }}
  const s = document.createElement("script");
  s.src = "http://hostile.example/hop-script";
  document.body.appendChild(s);
</script></body></html>"""


@pytest.fixture(scope="module")
def web() -> Iterator[RecordingWeb]:
    server = RecordingWeb()
    origin, secret = server.origin, f"{server.origin}/secret"
    html = "text/html; charset=utf-8"
    server.add(f"{origin}/js", Reply(JS_ONLY.encode(), html))
    server.add("http://news.example/js", Reply(JS_ONLY.encode(), html))
    server.add("http://news.example/static", Reply(STATIC.encode(), html))
    server.add("http://hostile.example/page", Reply(hostile_page(server.port).encode(), html))
    # Redirect hops are invisible to Playwright's route(); only the guard proxy can stop them.
    server.redirect("http://hostile.example/hop", f"{secret}?via=redirect-fetch")
    server.redirect("http://hostile.example/hop-script", f"{secret}?via=redirect-script")
    server.redirect("http://hostile.example/nav", f"{secret}?via=redirect-nav")
    server.redirect("http://hostile.example/meta", "http://169.254.169.254/latest/meta-data/")
    server.add(secret, Reply(b"the secret", "text/plain"))
    server.start()
    yield server
    server.close()


def never_reached(web: RecordingWeb, since: int = 0) -> None:
    """No private target in the server's log (from index `since`: the web is module-wide)."""
    assert not [hit for hit in web.hits[since:] if "/secret" in hit or "169.254" in hit]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def proxied(web: RecordingWeb) -> AsyncIterator[BrowserFetcher]:
    """A browser whose traffic goes through the recording web as its upstream HTTP proxy."""
    fetcher = BrowserFetcher(BrowserSettings(executable=CHROMIUM, proxy=web.origin))
    yield fetcher
    await fetcher.aclose()


@module_loop
@pytest.mark.browser
@pytest.mark.skipif(not (HAVE_PLAYWRIGHT and CHROMIUM), reason="needs playwright and chromium")
class TestWithChromium:
    async def test_js_page_through_proxy_yields_its_text(
        self, proxied: BrowserFetcher, web: RecordingWeb
    ) -> None:
        page = await proxied.fetch("http://news.example/js")
        assert "Zebrafish can regenerate" in page.text
        assert "epicardium" in page.text
        assert "Loading" not in page.text
        assert "http://news.example/js" in web.hits

    async def test_js_page_served_directly(self, web: RecordingWeb) -> None:
        # Reading 127.0.0.1 directly is only possible as an intranet opt-in.
        fetcher = BrowserFetcher(BrowserSettings(executable=CHROMIUM, allow_private=True))
        try:
            page = await fetcher.fetch(f"{web.origin}/js")
        finally:
            await fetcher.aclose()
        assert "Blocking those signals" in page.text

    async def test_fallback_uses_browser_only_for_the_js_page(
        self, proxied: BrowserFetcher, web: RecordingWeb, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("HTTP_PROXY", web.origin)
        http = HttpFetcher(FetchSettings())
        reader = BrowserFallbackFetcher(http, proxied, mode="auto")
        try:
            before = len(web.hits)
            static = await reader.fetch("http://news.example/static")
            static_hits = web.hits[before:]
            dynamic = await reader.fetch("http://news.example/js")
        finally:
            await http.aclose()
        assert static_hits == ["http://news.example/static"]  # HTTP alone, no browser visit
        assert "Zebrafish can regenerate" in static.text
        assert web.hits[-2:] == ["http://news.example/js", "http://news.example/js"]
        assert "Zebrafish can regenerate" in dynamic.text

    async def test_hostile_page_never_reaches_private_addresses(
        self, proxied: BrowserFetcher, web: RecordingWeb
    ) -> None:
        before = len(web.hits)
        page = await proxied.fetch("http://hostile.example/page")
        assert "Zebrafish can regenerate" in page.text
        assert "http://hostile.example/hop" in web.hits[before:]  # the script ran and tried
        never_reached(web, before)

    @pytest.mark.parametrize(
        "url",
        [
            "http://hostile.example/nav",
            "http://hostile.example/meta",
            "http://127.0.0.1:9/secret",
            "http://169.254.169.254/latest/meta-data/",
            "http://0x7f.1/secret",
        ],
    )
    async def test_navigation_to_private_address_is_refused(
        self, proxied: BrowserFetcher, web: RecordingWeb, url: str
    ) -> None:
        before = len(web.hits)
        with pytest.raises(BlockedURLError):
            await proxied.fetch(url)
        never_reached(web, before)

    async def test_status_reports_launch(self) -> None:
        ok, message = await probe_browser(BrowserSettings(executable=CHROMIUM))
        assert ok, message
        assert "launch+close ok" in message


@module_loop
@pytest.mark.extra("browser")
async def test_missing_executable_is_a_clear_fetch_error() -> None:
    fetcher = BrowserFetcher(
        BrowserSettings(executable="/nonexistent/chromium", proxy="http://127.0.0.1:9")
    )
    with pytest.raises(FetchError, match="browser unavailable: /nonexistent/chromium not found"):
        await fetcher.fetch("http://news.example/js")
    await fetcher.aclose()


@pytest.mark.extra("browser")
def test_status_without_chromium_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    ok, message = asyncio.run(probe_browser(BrowserSettings()))
    assert not ok
    assert "no chromium on PATH" in message


@module_loop
async def test_guard_proxy_refuses_private_targets_before_connecting(web: RecordingWeb) -> None:
    before = len(web.hits)
    guard = GuardProxy(GuardPolicy(), upstream=None)
    proxy = await guard.start()
    try:
        async with httpx2.AsyncClient(proxy=proxy, trust_env=False) as client:
            refused = await client.get(f"{web.origin}/secret?via=proxy-test")
            with pytest.raises(httpx2.ProxyError):
                await client.get(f"https://127.0.0.1:{web.port}/secret")
    finally:
        await guard.aclose()
    assert refused.status_code == 403
    assert refused.headers["x-sleuth-guard"] == "refused"
    never_reached(web, before)


@module_loop
async def test_guard_proxy_forwards_public_hosts_to_upstream(web: RecordingWeb) -> None:
    guard = GuardProxy(GuardPolicy(), upstream=web.origin)
    proxy = await guard.start()
    try:
        async with httpx2.AsyncClient(proxy=proxy, trust_env=False) as client:
            response = await client.get("http://news.example/static")
    finally:
        await guard.aclose()
    assert response.status_code == 200
    assert "server-rendered" in response.text


@module_loop
async def test_guard_proxy_tunnels_allowed_connect(web: RecordingWeb) -> None:
    guard = GuardProxy(GuardPolicy(allow_private=True), upstream=None)
    proxy_port = int((await guard.start()).rsplit(":", 1)[1])
    reader, writer = await asyncio.open_connection("127.0.0.1", proxy_port)
    try:
        writer.write(f"CONNECT 127.0.0.1:{web.port} HTTP/1.1\r\n\r\n".encode())
        established = await reader.readuntil(b"\r\n\r\n")
        writer.write(f"GET /js HTTP/1.1\r\nHost: 127.0.0.1:{web.port}\r\n\r\n".encode())
        response = await reader.read()  # the recording web closes after each reply
    finally:
        writer.close()
        await guard.aclose()
    assert established.startswith(b"HTTP/1.1 200")
    assert b"Heart regeneration" in response
