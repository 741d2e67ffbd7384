"""What the UI's browser tests share: a live `sleuth serve` subprocess on loopback pointed at
the test web and a scripted fake LLM, Debian's Chromium driven by Playwright with every request
the page makes recorded, axe-core (installed from npm into a cache at test time, like the SSE
client's package), and screenshots kept as test artifacts."""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run",
]  # fmt: skip
NODE_CACHE = Path.home() / ".cache/sleuth-tests/node"  # where .ci/run installs npm packages
AXE = NODE_CACHE / "node_modules/axe-core/axe.min.js"
AXE_PACKAGE = "axe-core@4.10.3"
# Where to copy the screenshots besides the test's own directory (`make screenshots` sets it).
SHOTS_ENV = "SLEUTH_SCREENSHOTS"
SHOTS_DIR = os.environ.get(SHOTS_ENV)

needs_browser = [
    pytest.mark.browser,
    pytest.mark.extra("browser"),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium at /usr/bin/chromium"),
    pytest.mark.skipif(importlib.util.find_spec("fastapi") is None, reason="needs sleuth[server]"),
]


def axe_source() -> str:
    """axe-core's browser build: `.ci/run` installs it; else npm installs it here once."""
    npm = shutil.which("npm")
    if not AXE.exists():
        if npm is None or shutil.which("node") is None:
            pytest.skip("axe-core needs Node.js and npm (.ci/run installs them from Debian)")
        NODE_CACHE.mkdir(parents=True, exist_ok=True)
        prefix = str(NODE_CACHE)
        command = [npm, "install", "--no-audit", "--no-fund", "--prefix", prefix, AXE_PACKAGE]
        subprocess.run(command, check=True, capture_output=True, timeout=300)
    return AXE.read_text("utf-8")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Server:
    base: str
    home: Path
    process: subprocess.Popen[bytes]


@contextmanager
def sleuth_serve(home: Path, *flags: str, env: dict[str, str] | None = None) -> Iterator[Server]:
    """`sleuth serve` as a user starts it, on a free loopback port, until the block ends."""
    port = free_port()
    command = [sys.executable, "-m", "sleuth.cli", "serve", "--port", str(port), *flags]
    environment = {**os.environ, "SLEUTH_HOME": str(home), **(env or {})}
    log = (home.parent / f"serve-{port}.log").open("wb")
    process = subprocess.Popen(command, env=environment, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError((home.parent / f"serve-{port}.log").read_text())
            time.sleep(0.1)
        yield Server(base, home, process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@dataclass
class Browsing:
    """One browser page with every request it made recorded, axe and screenshots at hand."""

    page: Any
    base: str
    shots: Path
    axe: str
    requests: list[str] = field(default_factory=list)
    taken: list[Path] = field(default_factory=list)

    def shot(self, name: str, element: str | None = None) -> Path:
        """The whole page (or only the element matching `element`) saved as `name`.png."""
        path = self.shots / f"{name}.png"
        if element is None:
            self.page.screenshot(path=str(path), full_page=True)
        else:
            self.page.locator(element).screenshot(path=str(path))
        self.taken.append(path)
        if SHOTS_DIR:
            Path(SHOTS_DIR).mkdir(parents=True, exist_ok=True)
            shutil.copy(path, Path(SHOTS_DIR) / path.name)
        return path

    def check_axe(self) -> list[dict[str, Any]]:
        """axe-core's serious and critical violations on the page as it is now. It is injected
        through the DevTools protocol, which the page's CSP does not govern."""
        if not self.page.evaluate("typeof window.axe !== 'undefined'"):
            self.page.evaluate(self.axe + "\n;undefined")
        found: list[dict[str, Any]] = self.page.evaluate(
            """async () => (await axe.run(document)).violations
                 .filter(v => v.impact === 'serious' || v.impact === 'critical')
                 .map(v => ({id: v.id, impact: v.impact,
                             nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 5)}))"""
        )
        return found

    def outside(self) -> list[str]:
        """Requests the page made to anywhere but the server."""
        return [u for u in self.requests if not u.startswith(self.base + "/") and u != self.base]


@contextmanager
def browsing(base: str, shots: Path, axe: str, **context: Any) -> Iterator[Browsing]:
    from playwright.sync_api import sync_playwright

    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        try:
            ctx = browser.new_context(color_scheme="light", **context)
            page = ctx.new_page()
            page.set_default_timeout(60_000)
            seen = Browsing(page, base, shots, axe)
            ctx.on("request", lambda r: seen.requests.append(r.url))
            yield seen
        finally:
            browser.close()
