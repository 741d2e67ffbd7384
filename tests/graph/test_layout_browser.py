"""The graph's labels measured by the browser that shows them: in Debian's Chromium, no node's
label overlaps another's label or circle, and every one is inside the picture."""

from __future__ import annotations

from typing import Any

import pytest

from sleuth.graph.render import render_graph
from tests.graph.test_layout import NAMES, graph
from tests.server.ui.browser import ARGS, CHROMIUM, needs_browser

pytestmark = needs_browser

BOXES = """() => [...document.querySelectorAll('g.kg-node')].map(g => {
  const t = g.querySelector('text').getBBox(), c = g.querySelector('circle').getBBox();
  return {label: [t.x, t.y, t.width, t.height], circle: [c.x, c.y, c.width, c.height]};
})"""


def _meet(a: list[float], b: list[float]) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


@pytest.mark.parametrize("names", [NAMES, [f"{n} and a much longer label" for n in NAMES]])
def test_labels_measured_in_chromium_do_not_overlap(names: list[str]) -> None:
    from playwright.sync_api import sync_playwright

    svg = render_graph(graph(names), "svg")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        try:
            page = browser.new_page()
            page.set_content(f"<!doctype html><body style='margin:0'>{svg}</body>")
            nodes: list[dict[str, Any]] = page.evaluate(BOXES)
        finally:
            browser.close()
    assert len(nodes) == len(names)
    for i, a in enumerate(nodes):
        x, y, w, h = a["label"]
        assert x >= 0 and y >= 0 and x + w <= 960 and y + h <= 640, a
        for b in nodes[i + 1 :]:
            assert not _meet(a["label"], b["label"]), (a, b)
            assert not _meet(a["label"], b["circle"]) and not _meet(b["label"], a["circle"])
