"""The official MCP Python client, unchanged, against Sleuth's MCP faces: `sleuth mcp` over
stdio (a subprocess, through the scripted fake LLM), and `sleuth serve`'s streamable HTTP
(`/api/mcp`) and legacy SSE (`/api/mcp/sse`) transports. Each lists and calls `research`,
receives progress notifications and a structured result whose citations verify; a failing run
is tool output with `isError: true` and its diagnostics; without a key HTTP refuses."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.llm.fake_servers import FakeLLMServer
from tests.server.harness import Served, serving
from tests.server.research_llm import CLAIM, research_llm
from tests.testweb.server import TestWeb

Q = "How long does Example Cloud keep audit logs by default?"
NOTHING = "zzqx quuxbaz flurbification protocol"  # the test web finds nothing for it
Transport = AbstractAsyncContextManager[Any]
REFUSED = (ExceptionGroup, MCPError, httpx2.HTTPStatusError)  # how the client reports a 401
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}


def check_citations(data: dict[str, Any]) -> None:
    """Every [n] in the answer is a citation of a listed source, quoted from its passages, and
    the citation check found every cited sentence supported."""
    sources = {s["number"]: s for s in data["sources"]}
    cited = sorted({int(n) for n in re.findall(r"\[(\d+)\]", data["answer"])})
    assert cited and [c["number"] for c in data["citations"]] == cited
    for citation in data["citations"]:
        source = sources[citation["number"]]
        assert (citation["url"], citation["title"]) == (source["url"], source["title"])
        passages = " ".join(p["text"] for p in source["passages"])
        assert citation["quote"].rstrip("…") in passages
    check = data["verification"]
    assert check["checked"] == check["supported"] >= 1 and check["unsupported"] == []


async def exercise(transport: Transport) -> dict[str, Any]:
    """List the tools, research Q with progress, fail a run; what was seen."""
    async with transport as streams, ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        tools = {t.name: t for t in (await session.list_tools()).tools}
        progress: list[tuple[float, str | None]] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append((done, message))

        answer = await session.call_tool("research", {"question": Q}, progress_callback=on_progress)
        failed = await session.call_tool("research", {"question": NOTHING})
        found = await session.call_tool("search", {"query": "audit log retention", "limit": 3})
    return {"tools": tools, "progress": progress, "answer": answer, "failed": failed,
            "found": found}  # fmt: skip


def check_session(seen: dict[str, Any]) -> dict[str, Any]:
    tools = seen["tools"]
    assert set(tools) == {"research", "search"}
    assert "use `search`" not in tools["research"].description  # says when, not how
    assert "research" in tools["search"].description and "minutes" in tools["research"].description
    assert tools["research"].output_schema["properties"]["citations"]
    assert {"question", "depth", "include_domains", "since", "max_cost_usd"} <= set(
        tools["research"].input_schema["properties"]
    )
    messages = [m or "" for _, m in seen["progress"]]
    steps = [p for p, _ in seen["progress"]]
    assert steps == sorted(steps) and len(set(steps)) == len(steps)  # progress only grows
    for word in ("searching", "reading", "writing", "checking citations"):
        assert any(m.startswith(word) for m in messages), (word, messages)
    assert any(re.fullmatch(r"reading \d+/\d+ pages", m) for m in messages)

    answer = seen["answer"]
    assert answer.is_error is False
    data = answer.structured_content
    check_citations(data)
    text = answer.content[0].text
    assert text.startswith(data["answer"].strip()[:40]) and "## Sources" in text
    grade = f"Confidence: {data['confidence']}: {data['confidence_reasons'][0]}."
    assert grade in text.split("## Sources")[0]  # the grade sits next to the answer

    failed = seen["failed"]
    assert failed.is_error is True
    report = failed.content[0].text
    assert report.startswith("Research failed: search found no results for the question")
    assert "Searched:" in report
    assert f'"{NOTHING}"' in report
    assert failed.structured_content["code"] == "NO_SOURCES"
    assert failed.structured_content["searched"][0]["query"] == NOTHING
    found = seen["found"]
    assert found.is_error is False and 1 <= len(found.structured_content["results"]) <= 3
    return data


@pytest.fixture
def llm() -> Any:
    server = FakeLLMServer("openai", responder=research_llm()).start()
    yield server
    server.stop()


async def test_stdio_sleuth_mcp(testweb_env: TestWeb, llm: FakeLLMServer) -> None:
    command = str(Path(sys.executable).parent / "sleuth")
    args = [
        "mcp", "--search=searxng", "--search-fallback=none", "--browser=never",
        f"--base-url={llm.url}", "--api-key=test-key", "--model=writer-model",
    ]  # fmt: skip
    params = StdioServerParameters(command=command, args=args, env=dict(os.environ))
    data = check_session(await exercise(stdio_client(params)))
    assert f"{CLAIM} [" in data["answer"]  # the model wrote it (through the fake LLM)
    assert data["session_id"]  # saved like `sleuth ask` runs
    writes = [r for r in llm.received if "<sources>" in str(r.body)]
    assert writes and {r.body["model"] for r in writes} == {"writer-model"}


def authorized(key: str | None) -> httpx2.AsyncClient:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60.0))


@asynccontextmanager
async def streamable(served: Served, key: str | None) -> AsyncIterator[Any]:
    url = served.base + "/api/mcp"
    async with authorized(key) as client, streamable_http_client(url, http_client=client) as s:
        yield s


def legacy(served: Served, key: str | None) -> Transport:
    headers = {"Authorization": f"Bearer {key}"} if key else None
    return sse_client(served.base + "/api/mcp/sse", headers=headers, sse_read_timeout=60)


@pytest.mark.parametrize("transport", [streamable, legacy], ids=["streamable-http", "sse"])
def test_http_transports_need_a_key(testweb_env: TestWeb, transport: Any) -> None:
    with serving() as served:
        key = served.key("acme")
        data = check_session(asyncio.run(exercise(transport(served, key))))
        assert data["cached"] is False
        assert [s.id for s in served.store.sessions.list(org="acme")] == [data["session_id"]]
        assert served.metric("sleuth_runs_total", depth="quick", outcome="ok") == 1
        for secret in (None, "sk-not-a-key"):
            with pytest.raises(REFUSED):
                asyncio.run(exercise(transport(served, secret)))
            headers = {"Authorization": f"Bearer {secret}"} if secret else {}
            for method, path in (("POST", "/api/mcp"), ("GET", "/api/mcp/sse"),
                                 ("POST", "/api/mcp/sse/messages/")):  # fmt: skip
                raw = httpx.request(method, served.base + path, headers=headers, json=INIT)
                assert raw.status_code == 401 and raw.json()["code"] == "UNAUTHORIZED"
        assert served.metric("sleuth_runs_total", depth="quick", outcome="ok") == 1
