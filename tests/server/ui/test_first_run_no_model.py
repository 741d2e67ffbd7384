"""Issue 27, item 1, in Debian's Chromium: a fresh home, no model, a short question the
heuristics cannot split. Ask → the plan (the question itself) → the first round → the report,
cited, with no search typed by the person. Before, the plan was empty and the first round
failed with "another round needs a suggestion to search"."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.ui.browser import browsing, needs_browser, sleuth_serve
from tests.testweb.server import TestWeb

pytestmark = needs_browser

SHORT = "How do audit logs work?"


@pytest.fixture
def served(testweb_env: TestWeb, tmp_path: Path) -> Iterator[str]:
    flags = ("--search=searxng", "--search-fallback=none", "--browser=never")
    with sleuth_serve(tmp_path / "fresh-home", *flags) as server:
        yield server.base


def test_quick_research_without_a_model_needs_no_typed_search(
    served: str, testweb_env: TestWeb, tmp_path: Path
) -> None:
    with browsing(served, tmp_path / "screenshots", "") as b:
        page = b.page
        page.goto(served + "/")
        page.fill("#question", SHORT)
        page.click("form[action='/runs'] button[type=submit]")

        page.wait_for_selector("[data-plan]")
        assert [i.input_value() for i in page.locator("[data-plan] input").all()] == [SHORT]
        page.click("button:has-text('Run the first round')")

        page.wait_for_selector("text=Run another round")
        assert testweb_env.searches == [SHORT]
        page.click("form[action$='/write'] button[type=submit]")

        page.wait_for_selector("#answer .cite a")
        text = page.inner_text("main")
        assert "Failed:" not in text  # the run did not fail
        assert "Failed the citation check: 0" in text  # and every citation passed
        assert page.locator("#answer .cite a").count() >= 1
        assert page.locator("#answer ol.sources li").count() >= 1
        assert testweb_env.searches == [SHORT]  # nothing but the question was searched
        assert not b.outside()
