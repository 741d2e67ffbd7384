"""The exported report renders in a real headless Chromium: light, dark and print layouts."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from sleuth.export import render_html

from ..store.factories import make_record, make_result
from .test_html import REPORT

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run",
]  # fmt: skip

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium at /usr/bin/chromium"),
    pytest.mark.skipif(
        importlib.util.find_spec("playwright") is None, reason="needs the playwright package"
    ),
]


def test_report_renders_in_headless_chromium(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    report = tmp_path / "report.html"
    report.write_text(render_html(make_record(result=make_result(answer=REPORT))), "utf-8")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        try:
            page = browser.new_page(color_scheme="light")
            requests: list[str] = []
            page.on("request", lambda r: requests.append(r.url))
            page.goto(report.as_uri())
            backgrounds = []
            for scheme in ("light", "dark"):
                page.emulate_media(color_scheme=scheme)
                shot = tmp_path / f"report-{scheme}.png"
                page.screenshot(path=str(shot), full_page=True)
                assert shot.stat().st_size > 10_000
                backgrounds.append(page.evaluate("getComputedStyle(document.body).background"))
            assert backgrounds[0] != backgrounds[1], "dark scheme must change the page"
            assert requests == [report.as_uri()], "no remote or extra assets"
            assert page.locator("sup.cite a").count() == 4
            assert page.locator("#contents li").count() == 3
            page.locator('sup.cite a[href="#src-2"]').first.click()
            assert page.evaluate("location.hash") == "#src-2"
            page.emulate_media(media="print")
            assert not page.locator("#contents").is_visible()
        finally:
            browser.close()
