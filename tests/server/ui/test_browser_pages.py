"""History, the diff of two runs, a DOCX asked about, and the knowledge graph, in a real
headless Chromium against a live `sleuth serve` on the loopback test web (issue 17 must-show),
with axe-core finding no serious or critical violation on any of those pages; and the Ask form
and an answer's citations used with the keyboard alone. Screenshots go through the shared
harness (`Browsing.shot`): test artifacts, copied to `SLEUTH_SCREENSHOTS` when it is set."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("jinja2", reason="the web UI needs sleuth[server]")
pytest.importorskip("docx", reason="the test writes a DOCX file")
import httpx

from tests.kb.docs import write_docx
from tests.server.ui.browser import Browsing, axe_source, browsing, needs_browser, sleuth_serve
from tests.testweb.server import TestWeb

Q = "How long does Example Cloud keep audit logs by default?"
DOCS = "http://docs.examplecloud.com/security/audit-logs/retention"
CHANGED = """<html><head><title>Audit log retention | Example Cloud Docs</title></head><body>
<main><h1>Audit log retention</h1><p>Example Cloud keeps audit logs for 180 days by default,
changed from 90 days on 1 December 2026. Enterprise plans keep audit logs for 400 days.</p>
</main></body></html>"""
PRICE_Q = "What does the Quasar plan cost per month?"
VIEWPORT = {"width": 1280, "height": 900}
MAX_TABS = 80  # more Tab presses than the page has focusable elements before the target

pytestmark = needs_browser


@pytest.fixture
def served(testweb_env: TestWeb, sleuth_home: Path) -> Iterator[str]:
    """`sleuth serve` as a subprocess: loopback, no keys (the UI's open mode), no model."""
    flags = ("--search=searxng", "--search-fallback=none", "--browser=never")
    with sleuth_serve(sleuth_home, *flags) as server:
        yield server.base


def no_violations(b: Browsing, where: str) -> None:
    found = b.check_axe()
    assert not found, f"axe-core on {where}: {found}"


def ask(served: str, question: str) -> str:
    """A finished run made through the API; its session id."""
    url = f"{served}/api/orgs/local/research"
    response = httpx.post(url, json={"query": question}, timeout=120)
    assert response.status_code == 200, response.text
    session: str = response.json()["session_id"]
    return session


def test_history_diff_docx_and_graph_in_chromium(
    served: str, testweb_env: TestWeb, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    first_id = ask(served, Q)
    testweb_env.add_page(DOCS, CHANGED)  # the page changes before the re-run
    docx_file = write_docx(tmp_path / "plans.docx")
    with browsing(served, tmp_path / "screenshots", axe_source(), viewport=VIEWPORT) as b:
        page = b.page
        page.on("dialog", lambda d: d.accept())

        # History: the run listed; re-run it and watch it live; the new run opens.
        page.goto(f"{served}/history")
        expect(page.locator(f'[data-session="{first_id}"]')).to_be_visible()
        page.fill("#tags-" + first_id, "audit")
        page.locator(f'[data-session="{first_id}"] form[action*="/tags"] button').click()
        expect(page.locator(".tag", has_text="#audit")).to_be_visible()
        no_violations(b, "history")
        b.shot("13-history")
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
        no_violations(b, "history, a thread opened")
        page.check(f"#pick-{second_id}")
        page.check(f"#pick-{first_id}")
        page.click("#compare-submit")
        expect(page.locator("h1")).to_have_text("What changed between two runs")
        expect(page.locator(".diff-lines .added").first).to_contain_text("180 days")
        expect(page.locator(".diff-lines .removed").first).to_contain_text("90 days")
        no_violations(b, "diff")
        b.shot("14-diff")

        # The knowledge graph of the new run: an edge opens the source it cites.
        page.goto(f"{served}/runs/{second_id}")
        edge = page.locator("#graph-body a.kg-edge").first
        expect(edge).to_be_visible(timeout=30_000)
        number = (edge.get_attribute("href") or "").removeprefix("#src-")
        edge.click()
        expect(page.locator("#graph-evidence")).to_contain_text(f"[{number}]")
        expect(page.locator("#panel-source-title")).to_contain_text(f"[{number}]")
        expect(page.locator(f"#src-{number}")).to_have_class("current")
        no_violations(b, "answer with the graph")
        b.shot("15-graph", element=".graph-panel")

        # Knowledge base: drop a DOCX and a broken file; one added, one with its reason.
        page.goto(f"{served}/kb?kb=sales")
        drop(page, "#kb-drop", [("plans.docx", docx_file.read_bytes()),
                                ("broken.pdf", b"not a pdf at all")])  # fmt: skip
        rows = page.locator("#kb-progress li")
        expect(rows).to_have_count(2)
        expect(rows.nth(0)).to_contain_text("added (docx")
        expect(rows.nth(1)).to_contain_text("not added: broken.pdf")
        no_violations(b, "knowledge base, after the upload")
        b.shot("16-kb-upload")
        page.click("#kb-reload a")
        expect(page.locator(".kb-table")).to_contain_text("upload/plans.docx")
        no_violations(b, "knowledge base, listed")

        # Ask about it with the knowledge base picked: plan, a round, the report.
        page.locator("a.button", has_text="Ask a question about these documents").click()
        expect(page.locator('input[name="kb"][value="sales"]')).to_be_checked()
        no_violations(b, "ask, a knowledge base picked")
        page.fill("#question", PRICE_Q)
        page.click("form[action='/runs'] button[type=submit]")
        page.locator("form[action$='/explore'] button[type=submit]").click()
        expect(page.locator("textarea#suggestions")).to_be_visible(timeout=120_000)
        page.locator("form[action$='/write'] button[type=submit]").click()
        expect(page.locator("#answer")).to_contain_text("37 zorkmids", timeout=120_000)
        expect(page.locator("ol.sources")).to_contain_text("plans.docx")
        no_violations(b, "answer from the DOCX")
        b.shot("17-docx-answer")
        assert b.outside() == [], "no page loads anything from outside the server"


def tab_to(page: Any, selector: str) -> int:
    """Press Tab until the focused element matches `selector`; how many presses it took."""
    for presses in range(1, MAX_TABS + 1):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement?.matches(s) ?? false", selector):
            return presses
    raise AssertionError(f"{MAX_TABS} presses of Tab never reached {selector}")


def test_the_keyboard_alone_asks_and_opens_citations(served: str, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    session = ask(served, Q)
    with browsing(served, tmp_path / "screenshots", axe_source(), viewport=VIEWPORT) as b:
        page = b.page
        page.goto(served + "/")
        tab_to(page, "#question")
        page.keyboard.type(Q)
        tab_to(page, "form[action='/runs'] button[type=submit]")

        page.goto(f"{served}/runs/{session}")
        expect(page.locator("#answer .cite a").first).to_be_visible()
        tab_to(page, "#answer .cite a")
        href = page.evaluate("document.activeElement.getAttribute('href')")
        number = href.removeprefix("#src-")
        page.keyboard.press("Enter")
        expect(page.locator("#panel-body")).to_be_visible()
        expect(page.locator("#panel-source-title")).to_contain_text(f"[{number}]")
        expect(page.locator(f"#src-{number}")).to_have_class("current")
        assert page.evaluate("document.activeElement.id") == "source-panel"
        assert b.outside() == []


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
