"""The research tool's arguments reach the run under their setting names, and what a run
filtered out is in the diagnostics of a failure: the tools served in-process to the official
client (`mcp.Client` over an MCPServer), on a real `Sleuth` reading the test web."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

from mcp import Client

from sleuth.app.application import Sleuth
from sleuth.server.mcp.local import LocalRunner
from sleuth.server.mcp.tools import build
from sleuth.settings import Settings
from tests.app.test_report_images import CHART, assert_never_requested, cloud_web
from tests.app.test_report_images import Q as CLOUD_Q
from tests.testweb.images import png
from tests.testweb.server import TestWeb

__all__ = ["cloud_web"]  # the fixture, used by name

Q = "How long does Example Cloud keep audit logs by default?"
DEFAULTS = {"search": "searxng", "search_fallback": "none", "browser": "never"}


@asynccontextmanager
async def tools() -> AsyncIterator[Any]:
    """The official client, connected in-process (its task scope stays in this task)."""
    async with Sleuth(Settings.from_env()) as app, Client(build(LocalRunner(app, DEFAULTS))) as c:
        yield c


async def call(name: str, arguments: dict[str, Any]) -> Any:
    async with tools() as client:
        return await client.call_tool(name, arguments)


async def test_domains_and_source_cap_reach_the_run(testweb_env: TestWeb) -> None:
    kept = await call(
        "research", {"question": Q, "include_domains": ["examplecloud.com"], "max_sources": 2}
    )
    assert kept.is_error is False
    sources = kept.structured_content["sources"]
    assert 1 <= len(sources) <= 2
    assert all(urlsplit(s["url"]).hostname.endswith("examplecloud.com") for s in sources)


async def test_a_run_with_everything_filtered_out_says_what_and_why(testweb_env: TestWeb) -> None:
    failed = await call("research", {"question": Q, "include_domains": ["nowhere.example"]})
    assert failed.is_error is True
    data = failed.structured_content
    assert data["code"] == "NO_SOURCES" and data["searched"][0]["query"] == Q
    assert data["skipped"] and {s["cause"] for s in data["skipped"]} == {"domain"}
    text = failed.content[0].text
    assert "Not used:" in text and f"- {data['skipped'][0]['url']}: " in text


async def test_bad_arguments_are_tool_errors_named_as_the_tool_names_them(
    testweb_env: TestWeb,
) -> None:
    async with tools() as client:
        since = await client.call_tool("research", {"question": Q, "since": "yesterdayish"})
        runtime = await client.call_tool("research", {"question": Q, "max_runtime_s": -5})
        empty = await client.call_tool("research", {"question": "   "})
    assert since.is_error is True and "since" in since.content[0].text
    assert runtime.is_error is True and "max_runtime_s" in runtime.content[0].text
    assert empty.is_error is True and "question" in empty.content[0].text


async def test_images_come_as_image_content_and_in_the_structured_result(
    cloud_web: TestWeb,
) -> None:
    """`images`: the figure of the cited page is listed in the result and comes as image
    content of the checked bytes; the page's private-address images are never requested."""
    found = await call("research", {"question": CLOUD_Q, "images": True})
    assert found.is_error is False
    assert [i["url"] for i in found.structured_content["images"]] == [CHART]
    pictures = [c for c in found.content if c.type == "image"]
    assert [(p.mime_type, base64.b64decode(p.data)) for p in pictures] == [("image/png", png())]
    assert_never_requested(cloud_web)
