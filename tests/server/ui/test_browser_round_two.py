"""Issue 27 in Debian's Chromium, no model configured: the knowledge-base table fits a phone
with its Remove buttons on screen, the progress list shows two-digit item numbers whole and
names pages by their titles, and after Re-run the address is the new run's."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.server.ui.browser import Browsing, axe_source, browsing, needs_browser, sleuth_serve
from tests.testweb.server import TestWeb

pytestmark = needs_browser

Q = "How long does Example Cloud keep audit logs by default?"
PHONE = {"width": 390, "height": 844}
WIDER = """() => [...document.querySelectorAll('body *')]
  .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)
  .map(e => `${e.tagName}#${e.id}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`)"""
MARKER_ROOM = """() => {
  const ol = document.querySelector('#last-log ol'), style = getComputedStyle(ol);
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = `${style.fontSize} ${style.fontFamily}`;
  return {pad: parseFloat(style.paddingLeft), need: ctx.measureText('99. ').width,
          items: ol.children.length};
}"""


@pytest.fixture
def served(testweb_env: TestWeb, tmp_path: Path) -> Iterator[str]:
    flags = ("--search=searxng", "--search-fallback=none", "--browser=never")
    with sleuth_serve(tmp_path / "home", *flags) as server:
        yield server.base


def no_violations(b: Browsing, where: str) -> None:
    found = b.check_axe()
    assert not found, f"axe-core on {where}: {found}"


def test_the_knowledge_base_fits_a_phone(served: str, tmp_path: Path) -> None:
    wants = {"Accept": "application/json"}
    for name in ("quarterly-revenue-report-for-the-northern-region-2026.txt", "notes.md"):
        body = f"# {name}\n\nExample Cloud keeps audit logs for 90 days by default.\n"
        added = httpx.post(f"{served}/kb/files", data={"kb": "default"}, headers=wants,
                           files={"file": (name, body.encode())})  # fmt: skip
        assert added.status_code == 201, added.text
    with browsing(served, tmp_path / "shots", axe_source(), viewport=PHONE) as b:
        b.page.goto(served + "/kb")
        overflow = b.page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        wide = b.page.evaluate(WIDER)
        assert overflow <= 1, wide
        buttons = b.page.locator(".kb-table button.danger")
        assert buttons.count() == 2
        for i in range(2):
            box = buttons.nth(i).bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
        no_violations(b, "knowledge base at 390 px")
        b.shot("kb-phone")


def test_progress_numbers_and_titles_and_rerun_opens_the_new_run(
    served: str, tmp_path: Path
) -> None:
    with browsing(served, tmp_path / "shots", axe_source()) as b:
        page = b.page
        page.goto(served + "/")
        page.fill("#question", Q)
        page.click("form[action='/runs'] button[type=submit]")
        page.wait_for_selector("[data-plan]")
        page.click("button:has-text('Run the first round')")
        page.wait_for_selector("text=Run another round")
        room = page.evaluate(MARKER_ROOM)
        assert room["items"] >= 10 and room["pad"] >= room["need"], room
        read = page.locator("#last-log li[data-type='fetch.done']").all_inner_texts()
        assert read and not any(t.startswith("✓ http") for t in read), read  # titles
        b.shot("progress")
        first = page.url
        page.goto(served + "/history")
        page.locator("form[action$='/rerun'] button").first.click()
        page.wait_for_url(re.compile(r"/runs/[^/?]+$"), timeout=60_000)
        assert page.url != first and "/history" not in page.url
        assert page.locator("#answer, [data-plan], .card").count() > 0
