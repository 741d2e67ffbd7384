"""The MCP client configurations of docs/mcp.md and the streaming curl example of
docs/streaming.md, parsed out of the pages and used as written (only the address and key differ)
with the official client."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx2
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.server.harness import serving
from tests.server.sse import frames
from tests.testweb.server import TestWeb

DOCS = Path(__file__).parents[2] / "docs"


def page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def configs() -> list[dict[str, Any]]:
    blocks = re.findall(r"```json\n(.*?)```", page("mcp.md"), re.DOTALL)
    return [json.loads(b)["mcpServers"]["sleuth"] for b in blocks]


async def tool_names(streams: Any) -> set[str]:
    async with ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        return {t.name for t in (await session.list_tools()).tools}


def test_the_stdio_config_starts_sleuth_mcp() -> None:
    stdio, _ = configs()
    assert stdio["command"] == "sleuth" and stdio["args"][0] == "mcp"
    # The console script of this environment, under the name the config gives.
    command = str(Path(sys.executable).parent / stdio["command"])
    env = {**os.environ, **stdio["env"]}

    async def main() -> set[str]:
        params = StdioServerParameters(command=command, args=stdio["args"], env=env)
        async with stdio_client(params) as streams:
            return await tool_names(streams)

    assert asyncio.run(main()) == {"research", "search"}


def test_the_http_config_reaches_sleuth_serve(testweb_env: TestWeb) -> None:
    _, http = configs()
    assert http["transportType"] == "streamable-http" and http["timeout"] >= 600
    assert http["url"] == "http://127.0.0.1:8000/api/mcp"
    with serving() as served:
        key = served.key("acme")
        url = http["url"].replace("http://127.0.0.1:8000", served.base)
        headers = {k: v.replace("YOUR_SLEUTH_KEY", key) for k, v in http["headers"].items()}

        async def main() -> set[str]:
            async with (
                httpx2.AsyncClient(headers=headers, timeout=http["timeout"]) as client,
                streamable_http_client(url, http_client=client) as streams,
            ):
                return await tool_names(streams)

        assert asyncio.run(main()) == {"research", "search"}


def test_the_streaming_curl_example(testweb_env: TestWeb) -> None:
    script = re.findall(r"```sh\n(.*?)```", page("streaming.md"), re.DOTALL)[0]
    with serving() as served:
        key = served.key("acme")
        done = subprocess.run(
            ["bash", "-c", script.replace("http://127.0.0.1:8000", served.base)],
            env={**os.environ, "SLEUTH_KEY": key}, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    got = list(frames(done.stdout.splitlines()))
    assert got[0].event == "plan.ready" and got[-1].event == "result"
    assert "[1]" in got[-1].json["answer"]
