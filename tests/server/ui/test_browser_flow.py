"""Must show (issue 17), in Debian's Chromium against a live `sleuth serve` on the loopback test
web with the scripted fake LLM: ask, answer the clarifying question, edit the plan (the edited
query is the one searched, from the test web's log), watch progress, add a suggestion for a
second round, get the cited report, open a citation's quote, edit and save a revision, switch
to 简体中文, dark theme and phone width; the service worker caches the shell only; no request
leaves the server; axe-core finds no serious or critical violation on any page."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.llm.fake_servers import FakeLLMServer, Received, Reply
from tests.server.ui.browser import Browsing, axe_source, browsing, needs_browser, sleuth_serve
from tests.testweb.server import TestWeb

pytestmark = needs_browser

Q = "How long does Example Cloud keep audit logs by default?"
PLANNED = ["Example Cloud audit log retention", "Example Cloud pricing tiers"]
EDITED = "example cloud audit log retention policy"
SUGGESTION = "audit log export"
HANG = "cancel-me"
SHELL = {"/static/app.css", "/static/app.js", "/static/icon.svg", "/manifest.webmanifest"}


def model(request: Received) -> Reply:
    """One clarifying question, a two-search plan, and a writer that cites source 1 (hanging
    when the audience asks it to, for the cancel test)."""
    prompt = " ".join(str(m.get("content", "")) for m in request.body["messages"])
    if "clarifying" in prompt or "sharpen a research question" in prompt:
        return Reply(chunks=[json.dumps(["Which plan tier do you mean?"])])
    if "plan web searches" in prompt:
        return Reply(chunks=[json.dumps(PLANNED)])
    if HANG in prompt:
        return Reply(hang=True)
    return Reply(
        chunks=[
            "## Retention\n\nExample Cloud keeps audit logs for 90 days by default [1]. ",
            "Logs can be exported to your own storage [1].",
        ]
    )


@pytest.fixture
def llm() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer("openai", responder=model).start()
    yield server
    server.stop()


@pytest.fixture
def served(testweb_env: TestWeb, llm: FakeLLMServer, tmp_path: Path) -> Iterator[str]:
    flags = ("--search=searxng", "--search-fallback=none", "--browser=never",
             f"--base-url={llm.url}", "--api-key=k", "--model=m")  # fmt: skip
    with sleuth_serve(tmp_path / "home", *flags) as server:
        yield server.base


def no_violations(b: Browsing, where: str) -> None:
    found = b.check_axe()
    assert not found, f"axe-core on {where}: {found}"


def test_steered_research_in_the_browser(served: str, testweb_env: TestWeb, tmp_path: Path) -> None:
    with browsing(served, tmp_path / "screenshots", axe_source()) as b:
        page = b.page
        page.goto(served + "/")
        no_violations(b, "ask")
        page.fill("#question", Q)
        b.shot("01-ask")
        page.click("form[action='/runs'] button[type=submit]")

        page.wait_for_selector("text=Which plan tier do you mean?")
        no_violations(b, "clarify")
        page.fill("#answer-1", "the Standard plan")
        b.shot("02-clarify")
        page.click("button:has-text('Make the plan')")

        page.wait_for_selector("[data-plan]")
        values = [i.input_value() for i in page.locator("[data-plan] input").all()]
        assert values == PLANNED
        page.locator("[data-plan] li").nth(1).locator("[data-remove]").click()
        page.click("[data-add]")
        page.locator("[data-plan] input").nth(1).fill(EDITED)
        no_violations(b, "plan")
        b.shot("03-plan")
        page.click("button:has-text('Run the first round')")

        page.wait_for_selector("text=Run another round")
        done = page.locator("#last-log li[data-type='search.done']")
        assert done.count() >= 2 and any(EDITED in t for t in done.all_inner_texts())
        assert page.locator("#last-log li[data-type='read.start']").count() >= 1
        b.shot("04-progress")
        searched = testweb_env.searches
        assert EDITED in searched and PLANNED[0] in searched and PLANNED[1] not in searched

        page.fill("#suggestions", SUGGESTION)
        no_violations(b, "explore")
        page.click("button:has-text('Run another round')")
        page.wait_for_selector("text=Rounds: 2")
        assert SUGGESTION in page.inner_text("#last-log")
        assert testweb_env.searches[-1] == SUGGESTION
        b.shot("05-second-round")

        page.select_option("#tone", "formal")
        page.select_option("#length", "short")
        page.fill("#audience", "auditors")
        page.click("form[action$='/write'] button[type=submit]")
        page.wait_for_selector("#answer .cite a")
        assert "90 days" in page.inner_text("#answer")
        assert page.locator(".badges").inner_text().count(":") >= 4
        no_violations(b, "report")
        b.shot("06-report")

        page.locator("#answer .cite a").first.click()
        page.wait_for_selector("#panel-body:not([hidden])")
        quote = page.inner_text("#panel-quote")
        expected = page.locator("#src-1").get_attribute("data-quote") or ""
        assert quote and quote.split() == expected.split() and "90 days" in quote
        assert page.inner_text("#panel-url").startswith("http://")
        b.shot("07-citation")

        page.click("a:has-text('Edit')")
        page.wait_for_selector("#preview .cite")
        text = page.input_value("#text")
        page.fill("#text", text + "\n\nZebras invented audit logs in 1802 [1].")
        page.wait_for_selector("#preview mark.unsupported")
        page.fill("#note", "added a claim")
        no_violations(b, "editor")
        b.shot("08-edit")
        page.click("button:has-text('Save as a new revision')")
        page.wait_for_url(re.compile(r"\?rev=1$"))
        assert "Revision 1" in page.inner_text("main")
        assert page.locator("#answer mark.unsupported").count() == 1

        page.select_option("#pref-lang", "zh-Hans")
        page.wait_for_selector("html[lang='zh-Hans']")
        assert "来源" in page.inner_text("main")
        no_violations(b, "report in Chinese")
        b.shot("09-zh-Hans")

        page.select_option("#pref-theme", "dark")
        page.wait_for_selector("html[data-theme='dark']")
        no_violations(b, "report, dark")
        b.shot("10-dark")

        page.set_viewport_size({"width": 390, "height": 844})
        page.reload()
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, f"the page scrolls sideways at phone width by {overflow}px"
        b.shot("11-phone")

        page.goto(served + "/settings")
        no_violations(b, "settings")
        b.shot("12-settings")

        cached = page.evaluate(
            """async () => { await navigator.serviceWorker.ready;
                 const names = await caches.keys(); const urls = [];
                 for (const n of names) for (const r of await (await caches.open(n)).keys())
                   urls.push(new URL(r.url).pathname);
                 return urls; }"""
        )
        assert set(cached) == SHELL, cached
        assert b.outside() == [], f"requests that left the server: {b.outside()}"
        assert len(b.taken) == 12


def test_cancel_really_cancels(served: str, tmp_path: Path) -> None:
    with browsing(served, tmp_path / "shots", axe_source()) as b:
        page = b.page
        page.goto(served + "/")
        page.fill("#question", Q)
        page.click("form[action='/runs'] button[type=submit]")
        page.click("button:has-text('Make the plan')")
        page.click("button:has-text('Run the first round')")
        page.wait_for_selector("text=Run another round")
        explored = page.url
        page.fill("#audience", HANG)
        page.click("form[action$='/write'] button[type=submit]")
        page.wait_for_selector("#live-log li[data-type='writer.start']")
        page.click("#live-cancel")
        page.wait_for_selector("#live-log li[data-type='cancelled']")
        assert page.url == explored
        page.reload()
        assert page.locator("form[action$='/write']").count() == 1  # still at explore
        assert b.outside() == []
