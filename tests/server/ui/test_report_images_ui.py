"""Images in the web UI's report (issue 29, item 5): a steered run asked for images shows the
cited page's figure after its sentence's block, inline as a `data:` URI of the checked bytes —
the reader's browser never asks the image's host — and the page's images survive the saved
stages between the plan and the report."""

from __future__ import annotations

import asyncio
import base64
import re

import pytest

pytest.importorskip("jinja2", reason="the web UI needs sleuth[server]")
import httpx

from sleuth.app.application import Sleuth
from sleuth.app.steer import Steering
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


@pytest.mark.parametrize(("env", "ticked"), [(None, False), ("1", True)])
def test_the_ask_page_offers_images_ticked_as_the_operator_set(
    env: str | None, ticked: bool, testweb_env: TestWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    if env is not None:
        monkeypatch.setenv("SLEUTH_IMAGES", env)
    with serving(ServerConfig(open_access=True)) as served:
        page = httpx.get(f"{served.base}/", headers={"Accept": "text/html"}).text
    box = re.search(r'<input type="checkbox" name="images" value="1"( checked)?', page)
    assert box is not None and bool(box.group(1)) is ticked


def test_a_run_started_from_the_ask_page_with_images_keeps_them_on(cloud_web: TestWeb) -> None:
    with serving(ServerConfig(open_access=True)) as served:
        with httpx.Client(base_url=served.base, headers={"Origin": served.base}) as client:
            started = client.post("/runs", data={"question": Q, "depth": "quick", "images": "1"})
        assert started.status_code == 303, started.text
        session_id = started.headers["location"].rsplit("/", 1)[1]
        state = asyncio.run(saved_values(session_id))
    assert state["images"] is True


async def saved_values(session_id: str) -> dict[str, object]:
    async with Sleuth(Settings.from_env()) as app:
        record = await app.saved.get(session_id)
    return dict(Steering.from_record(record).values)
