"""History, the diff of two runs, a DOCX asked about, and the knowledge graph, in a real
headless Chromium against a live `sleuth serve` on the loopback test web (issue 17 must-show).
A screenshot of each step is kept as a test artifact (`UI_SCREENSHOTS=DIR`, else the
test's temp dir); `docs/screenshots/` holds a reviewed set."""

from __future__ import annotations

import base64
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("jinja2", reason="the web UI needs sleuth[server]")
pytest.importorskip("docx", reason="the test writes a DOCX file")
import httpx

from tests.kb.docs import write_docx
from tests.testweb.server import TestWeb

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run",
]  # fmt: skip
Q = "How long does Example Cloud keep audit logs by default?"
DOCS = "http://docs.examplecloud.com/security/audit-logs/retention"
CHANGED = """<html><head><title>Audit log retention | Example Cloud Docs</title></head><body>
<main><h1>Audit log retention</h1><p>Example Cloud keeps audit logs for 180 days by default,
changed from 90 days on 1 December 2026. Enterprise plans keep audit logs for 400 days.</p>
</main></body></html>"""
PRICE_Q = "What does the Quasar plan cost per month?"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.extra("browser"),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium at /usr/bin/chromium"),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def served(testweb_env: TestWeb) -> Iterator[str]:
    """`sleuth serve` as a subprocess: loopback, no keys (the UI's open mode)."""
    port = free_port()
    command = [
        sys.executable, "-m", "sleuth.cli", "serve", f"--port={port}", "--search=searxng",
        "--search-fallback=none", "--browser=never",
    ]  # fmt: skip
    proc = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            if proc.poll() is not None:
                raise AssertionError(
                    f"sleuth serve exited: {proc.stderr.read() if proc.stderr else ''}"
                )
            try:
                if httpx.get(base + "/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        yield base
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("UI_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_history_diff_docx_and_graph_in_chromium(
    served: str, testweb_env: TestWeb, shots: Path, tmp_path: Path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    first = httpx.post(f"{served}/api/orgs/local/research", json={"query": Q}, timeout=120)
    assert first.status_code == 200, first.text
    first_id = first.json()["session_id"]
    testweb_env.add_page(DOCS, CHANGED)  # the page changes before the re-run
    docx_file = write_docx(tmp_path / "plans.docx")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            requests: list[str] = []
            page.on("request", lambda r: requests.append(r.url))
            page.on("dialog", lambda d: d.accept())

            # History: the run listed; re-run it and watch it live; the new run opens.
            page.goto(f"{served}/history")
            expect(page.locator(f'[data-session="{first_id}"]')).to_be_visible()
            page.fill("#tags-" + first_id, "audit")
            page.locator(f'[data-session="{first_id}"] form[action*="/tags"] button').click()
            expect(page.locator(".tag", has_text="#audit")).to_be_visible()
            page.screenshot(path=str(shots / "history.png"), full_page=True)
            page.locator(f'[data-session="{first_id}"] form[action$="/rerun"] button').click()
            expect(page.locator("#live-log li").first).to_be_visible(timeout=30_000)
            page.wait_for_url(f"{served}/runs/**", timeout=120_000)
            second_id = page.url.rsplit("/", 1)[1]
            assert second_id != first_id
            expect(page.locator("#answer")).to_contain_text("180 days")

            # The diff of the two runs, picked on the History page.
            page.goto(f"{served}/history?tag=audit")
            thread = page.locator(f'[data-session="{second_id}"]')
            expect(thread).to_be_visible()
            thread.locator("details.earlier summary").click()
            page.check(f"#pick-{second_id}")
            page.check(f"#pick-{first_id}")
            page.click("#compare-submit")
            expect(page.locator("h1")).to_have_text("What changed between two runs")
            expect(page.locator(".diff-lines .added").first).to_contain_text("180 days")
            expect(page.locator(".diff-lines .removed").first).to_contain_text("90 days")
            page.screenshot(path=str(shots / "diff.png"), full_page=True)

            # The knowledge graph of the new run: an edge opens the source it cites.
            page.goto(f"{served}/runs/{second_id}")
            edge = page.locator("#graph-body a.kg-edge").first
            expect(edge).to_be_visible(timeout=30_000)
            number = (edge.get_attribute("href") or "").removeprefix("#src-")
            edge.click()
            expect(page.locator("#graph-evidence")).to_contain_text(f"[{number}]")
            expect(page.locator("#panel-source-title")).to_contain_text(f"[{number}]")
            expect(page.locator(f"#src-{number}")).to_have_class("current")
            page.locator(".graph-panel").screenshot(path=str(shots / "graph.png"))

            # Knowledge base: drop a DOCX and a broken file; one added, one with its reason.
            page.goto(f"{served}/kb?kb=sales")
            drop(page, "#kb-drop", [("plans.docx", docx_file.read_bytes()),
                                    ("broken.pdf", b"not a pdf at all")])  # fmt: skip
            rows = page.locator("#kb-progress li")
            expect(rows).to_have_count(2)
            expect(rows.nth(0)).to_contain_text("added (docx")
            expect(rows.nth(1)).to_contain_text("not added: broken.pdf")
            page.screenshot(path=str(shots / "kb-upload.png"), full_page=True)
            page.click("#kb-reload a")
            expect(page.locator(".kb-table")).to_contain_text("upload/plans.docx")

            # Ask about it with the knowledge base picked: plan, a round, the report.
            page.locator("a.button", has_text="Ask a question about these documents").click()
            expect(page.locator('input[name="kb"][value="sales"]')).to_be_checked()
            page.fill("#question", PRICE_Q)
            page.click("form[action='/runs'] button[type=submit]")
            page.locator("form[action$='/explore'] button[type=submit]").click()
            expect(page.locator("textarea#suggestions")).to_be_visible(timeout=120_000)
            page.locator("form[action$='/write'] button[type=submit]").click()
            expect(page.locator("#answer")).to_contain_text("37 zorkmids", timeout=120_000)
            expect(page.locator("ol.sources")).to_contain_text("plans.docx")
            page.screenshot(path=str(shots / "docx-answer.png"), full_page=True)
        finally:
            browser.close()
    outside = [u for u in requests if not u.startswith(served)]
    assert outside == [], "no page loads anything from outside the server"


def drop(page: object, target: str, files: list[tuple[str, bytes]]) -> None:
    """A real drop event carrying these files, as a person dragging them from a folder."""
    encoded = [(name, base64.b64encode(data).decode()) for name, data in files]
    handle = page.evaluate_handle(  # type: ignore[attr-defined]
        """(files) => {
            const dt = new DataTransfer();
            for (const [name, b64] of files) {
                const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
                dt.items.add(new File([bytes], name));
            }
            return dt;
        }""",
        encoded,
    )
    page.dispatch_event(target, "dragenter", {"dataTransfer": handle})  # type: ignore[attr-defined]
    page.dispatch_event(target, "drop", {"dataTransfer": handle})  # type: ignore[attr-defined]
