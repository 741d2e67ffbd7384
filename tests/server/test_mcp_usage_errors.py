"""A usage error through MCP over HTTP says what was wrong and is not retryable. A bad `search`
value used to come back as "the run ended without a result (CANCELLED, retryable)", so a
client retried it forever (issue 24). The official MCP client over streamable HTTP."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
import asyncio
from typing import Any

from mcp import ClientSession

from tests.server.harness import serving
from tests.server.test_mcp import streamable
from tests.testweb.server import TestWeb

Q = "How long does Example Cloud keep audit logs by default?"
BAD = [
    ({"search": "bogus"}, "unknown search backend 'bogus'"),
    ({"search": "multi:searxng,nope"}, "unknown search backend 'nope'"),
    ({"since": "yesterdayish"}, "since"),
]


async def calls(transport: Any) -> list[Any]:
    async with transport as streams, ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        return [
            await session.call_tool("research", {"question": Q, **arguments})
            for arguments, _ in BAD
        ]


def test_usage_errors_over_http_say_what_and_are_not_retryable(testweb_env: TestWeb) -> None:
    with serving() as served:
        results = asyncio.run(calls(streamable(served, served.key("acme"))))
    for (_, said), result in zip(BAD, results, strict=True):
        data = result.structured_content
        assert result.is_error is True
        assert data["retryable"] is False and data["code"] == "BAD_REQUEST", data
        assert said in data["error"] and said in result.content[0].text
        assert "retryable" not in result.content[0].text.splitlines()[0]
