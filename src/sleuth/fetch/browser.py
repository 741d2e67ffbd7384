"""Reading JavaScript-rendered pages through a real Chromium (the `sleuth[browser]` extra).

Playwright drives a system Chromium (found on PATH or given) or a remote one over CDP; a
browser is never downloaded. Each fetch gets a fresh isolated context, closed afterwards. The
same SSRF rules as plain HTTP apply twice over: `context.route` refuses requests before the
browser sends them, and all traffic goes through a loopback `GuardProxy`, which also sees the
redirect hops that `route` never does.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..errors import BlockedURLError, FetchError
from ..extras import install_hint
from ..ports import Fetcher
from ..types import BrowserMode, Page
from .extract import extract_html
from .guard import GuardPolicy, check_url
from .guard_proxy import GUARD_HEADER, GuardProxy
from .sandbox import shared_sandbox

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Playwright, Route


EXECUTABLE_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
LAUNCH_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
    # WebRTC can send UDP to any address, outside both route() and the proxy.
    "--force-webrtc-ip-handling-policy",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
)
# Nothing in these helps text extraction; skipping them makes pages settle sooner.
SKIPPED_RESOURCES = frozenset({"image", "media", "font"})
NETWORK_IDLE_SHARE = 0.5  # at most this share of the timeout is spent waiting for quiet
MAX_RENDERED_CHARS = 5_000_000  # the same cap as a plain-HTTP body


@dataclass(frozen=True, slots=True)
class BrowserSettings:
    executable: str | None = None  # default: the first of EXECUTABLE_NAMES on PATH
    cdp_endpoint: str | None = None  # e.g. http://127.0.0.1:9222; overrides `executable`
    timeout_s: float = 15.0
    mode: BrowserMode = "auto"
    min_text_chars: int = 400  # in auto mode, shorter HTTP extractions are retried in a browser
    allow_private: bool = False
    proxy: str | None = None  # upstream HTTP proxy; hostnames are then resolved by it


def find_executable(settings: BrowserSettings) -> str:
    """The Chromium to launch, or FetchError("browser unavailable: ...")."""
    if settings.executable:
        path = shutil.which(settings.executable) or settings.executable
        if not Path(path).is_file():
            raise FetchError(
                f"browser unavailable: {settings.executable} not found", cause="browser"
            )
        return path
    for name in EXECUTABLE_NAMES:
        if found := shutil.which(name):
            return found
    raise FetchError(
        "browser unavailable: no chromium on PATH (install it, or set browser_executable)",
        cause="browser",
    )


class BrowserFetcher:
    """A `Fetcher` that renders pages in Chromium; one browser, launched on first use."""

    def __init__(self, settings: BrowserSettings) -> None:
        self.settings = settings
        self._policy = GuardPolicy(settings.allow_private, proxied=settings.proxy is not None)
        self._proxy = GuardProxy(GuardPolicy(settings.allow_private), settings.proxy)
        self._lock = asyncio.Lock()
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None

    async def fetch(self, url: str) -> Page:
        try:
            from playwright.async_api import Error as PlaywrightError
        except ImportError:
            reason = f"browser unavailable: {install_hint('browser')}"
            raise FetchError(reason, url, cause="browser") from None

        await check_url(url, self._policy)
        browser = await self._ensure_browser()
        try:
            async with asyncio.timeout(self.settings.timeout_s):
                return await self._fetch_isolated(browser, url)
        except TimeoutError as exc:
            raise FetchError("browser: timed out", url, cause="browser") from exc
        except PlaywrightError as exc:  # a crashed browser, a page navigating away mid-read
            raise _navigation_error(exc, url) from exc

    async def _fetch_isolated(self, browser: Browser, url: str) -> Page:
        # "<-loopback>": Chromium sends loopback directly by default; it must meet the guard too.
        context = await browser.new_context(
            proxy={"server": await self._proxy.start(), "bypass": "<-loopback>"},
            service_workers="block",
            accept_downloads=False,
        )
        try:
            await context.route("**/*", self._route)
            await context.route_web_socket("**/*", _refuse_web_socket)
            return await self._render(context, url)
        finally:
            await context.close()

    async def aclose(self) -> None:
        async with self._lock:
            if self._browser is not None:
                await self._browser.close()
            if self._playwright is not None:
                await self._playwright.stop()
            self._browser = self._playwright = None
            await self._proxy.aclose()

    async def _render(self, context: BrowserContext, url: str) -> Page:
        page = await context.new_page()
        timeout_ms = self.settings.timeout_s * 1000
        response = await page.goto(url, wait_until="domcontentloaded", timeout=timeout_ms)
        if response is not None and response.headers.get(GUARD_HEADER.lower()):
            raise BlockedURLError("browser: redirect to a blocked address", url)
        if response is not None and response.status >= 400:
            raise FetchError(f"HTTP {response.status}", url, cause="browser")
        await _settle(page, timeout_ms * NETWORK_IDLE_SHARE)
        final_url = page.url
        # Extraction runs in the sandbox like a plain-HTTP page's: a rendered DOM is as hostile
        # as the HTML it came from, and is cut at the same size.
        html = (await page.content())[:MAX_RENDERED_CHARS]
        extracted = await shared_sandbox().run(extract_html, html, final_url)
        if not extracted.text.strip():
            raise FetchError("no text", url, cause="browser")
        return Page(
            url=url,
            title=extracted.title or await page.title(),
            text=extracted.text,
            fetched_at=datetime.now(UTC).isoformat(timespec="seconds"),
            final_url=final_url if final_url != url else None,
            published=extracted.published,
        )

    async def _route(self, route: Route) -> None:
        from playwright.async_api import Error as PlaywrightError

        try:
            if await self._allowed(route.request.url, route.request.resource_type):
                await route.continue_()
            else:
                await route.abort("blockedbyclient")
        except PlaywrightError:
            pass  # the context closed while this request was pending: nothing left to decide

    async def _allowed(self, url: str, resource_type: str) -> bool:
        if resource_type in SKIPPED_RESOURCES:
            return False
        if urlsplit(url).scheme in ("data", "blob"):
            return True  # in-memory, never reaches the network
        try:
            await check_url(url, self._policy)
        except FetchError:
            self._proxy.refused.append(url)
            return False
        return True

    async def _ensure_browser(self) -> Browser:
        async with self._lock:
            if self._browser is None or not self._browser.is_connected():
                self._browser = await self._start()
            return self._browser

    async def _start(self) -> Browser:
        executable = None if self.settings.cdp_endpoint else find_executable(self.settings)
        try:
            from playwright.async_api import Error as PlaywrightError
            from playwright.async_api import async_playwright
        except ImportError as exc:
            raise FetchError(
                f"browser unavailable: {install_hint('browser')}", cause="browser"
            ) from exc
        if self._playwright is None:
            self._playwright = await async_playwright().start()
        chromium = self._playwright.chromium
        timeout_ms = self.settings.timeout_s * 1000
        try:
            if self.settings.cdp_endpoint:
                return await chromium.connect_over_cdp(
                    self.settings.cdp_endpoint, timeout=timeout_ms
                )
            return await chromium.launch(
                executable_path=executable,
                headless=True,
                args=list(LAUNCH_ARGS),
                timeout=timeout_ms,
            )
        except PlaywrightError as exc:
            raise FetchError(f"browser unavailable: {_first_line(exc)}", cause="browser") from exc


class BrowserFallbackFetcher:
    """Plain HTTP first; the browser when HTTP yields no or too little text (JS-rendered pages)."""

    def __init__(
        self, http: Fetcher, browser: Fetcher, mode: BrowserMode = "auto", min_text_chars: int = 400
    ) -> None:
        self.http = http
        self.browser = browser
        self.mode = mode
        self.min_text_chars = min_text_chars

    async def fetch(self, url: str) -> Page:
        if self.mode == "always":
            return await self.browser.fetch(url)
        if self.mode == "never":
            return await self.http.fetch(url)
        try:
            page = await self.http.fetch(url)
        except BlockedURLError:
            raise
        except FetchError as exc:
            if not exc.reason.startswith("no text"):
                raise
            try:
                return await self.browser.fetch(url)
            except FetchError as browser_failed:
                if browser_failed.reason.startswith("browser unavailable"):
                    raise exc from None  # no browser to try: the page's own reason stands
                raise
        if len(page.text) >= self.min_text_chars or not _is_html(page) or not page.scripted:
            # Enough text; or a short PDF, plain text or script-free page (a stub article):
            # a browser cannot improve on it, and starting one costs a second or more.
            return page
        try:
            return await self.browser.fetch(url)
        except FetchError:
            return page  # a short page beats none

    async def aclose(self) -> None:
        await self.http.aclose()
        await self.browser.aclose()


def reading_fetcher(http: Fetcher, settings: BrowserSettings) -> Fetcher:
    """What the engine should read with: HTTP alone when the browser is off, else the fallback."""
    if settings.mode == "never":
        return http
    browser = BrowserFetcher(settings)
    return BrowserFallbackFetcher(http, browser, settings.mode, settings.min_text_chars)


async def probe_browser(settings: BrowserSettings) -> tuple[bool, str]:
    """For `sleuth doctor`: can a browser be started (or reached) and closed, and how fast."""
    try:
        import playwright  # noqa: F401
    except ImportError:
        return False, f"playwright not installed ({install_hint('browser')})"
    fetcher = BrowserFetcher(settings)
    started = time.perf_counter()
    try:
        await fetcher._ensure_browser()
        where = settings.cdp_endpoint or find_executable(settings)
    except FetchError as exc:
        return False, exc.reason
    finally:
        await fetcher.aclose()
    return True, f"{where}: launch+close ok in {(time.perf_counter() - started) * 1000:.0f} ms"


async def _settle(page: Any, timeout_ms: float) -> None:
    """Wait for network quiet, but a page that never goes quiet is still read as it stands."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    with contextlib.suppress(PlaywrightTimeout):
        await page.wait_for_load_state("networkidle", timeout=timeout_ms)


async def _refuse_web_socket(ws: Any) -> None:
    await ws.close(code=1008, reason="websockets are not used for reading")


def _navigation_error(exc: Exception, url: str) -> FetchError:
    message = _first_line(exc)
    if "ERR_BLOCKED_BY_CLIENT" in message:
        return BlockedURLError("browser: blocked by the address guard", url)
    if "ERR_TUNNEL_CONNECTION_FAILED" in message:
        # The guard proxy refuses an https hop this way, but an unreachable host looks the same.
        return FetchError(
            "browser: tunnel refused (blocked redirect or unreachable host)", url, cause="browser"
        )
    if "Download is starting" in message:
        return FetchError("browser: not a page (download refused)", url, cause="browser")
    return FetchError(f"browser: {message}", url, cause="browser")


def _is_html(page: Page) -> bool:
    return page.content_type.startswith(("text/html", "application/xhtml"))


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
