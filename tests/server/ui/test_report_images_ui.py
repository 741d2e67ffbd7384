"""Images in the web UI's report (issue 29, item 5): a steered run asked for images shows the
cited page's figure after its sentence's block, inline as a `data:` URI of the checked bytes —
the reader's browser never asks the image's host — and the page's images survive the saved
stages between the plan and the report."""

from __future__ import annotations

import asyncio
import base64

import pytest

pytest.importorskip("jinja2", reason="the web UI needs sleuth[server]")
import httpx

from sleuth.app.application import Sleuth
from sleuth.server.config import ServerConfig
from sleuth.settings import Settings
from tests.app.test_report_images import CHART, Q, assert_never_requested, cloud_web
from tests.server.harness import serving
from tests.testweb.images import png
from tests.testweb.server import TestWeb

__all__ = ["cloud_web"]  # the fixture, used by name


async def steered_report() -> str:
    async with Sleuth(Settings.from_env()) as app:
        state = await app.steer(Q, search="searxng", search_fallback="none", images=True)
        state = await app.steer_explore(app.steer_edit(state, [Q]))
        done = await app.steer_write(state, "")
    assert done.result is not None and [f.url for f in done.result.images] == [CHART]
    return done.session_id or ""


def test_the_report_page_shows_the_figure_inline(cloud_web: TestWeb) -> None:
    session_id = asyncio.run(steered_report())
    config = ServerConfig(open_access=True)
    with serving(config) as served, httpx.Client(base_url=served.base) as client:
        page = client.get(f"/runs/{session_id}", headers={"Accept": "text/html"}).text
    inline = f"data:image/png;base64,{base64.b64encode(png()).decode()}"
    assert f'<figure class="illustration"><img src="{inline}"' in page
    assert f'src="{CHART}' not in page
    assert_never_requested(cloud_web)
