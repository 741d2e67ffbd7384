"""No face returns another owner's knowledge-base text, with the server's default search set to
include the knowledge base (`sleuth serve --search=multi:kb,searxng`). The operator's own base
(owner `local`) and organization acme's each hold a document no one else may read; organization
globex asks through every face — research as JSON and as a stream, search (basic and
advanced), the web-app SSE dialect, MCP over HTTP (research and search) — and acme asks too
(its own document, never the operator's). The UI and MCP over stdio act for the operator: they
may read its base, never acme's. (`/research` once scoped the knowledge base while
`/search`, `/api/sse` and the MCP `search` tool did not: globex received the operator's
documents, file paths included.)"""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
from mcp import Client

from sleuth.app.application import Sleuth
from sleuth.server.config import ServerConfig
from sleuth.server.mcp.local import LocalRunner
from sleuth.server.mcp.tools import build
from sleuth.settings import Settings
from tests.server.harness import TESTWEB_DEFAULTS, Served, serving
from tests.server.sse import frames
from tests.server.test_mcp import streamable
from tests.testweb.server import TestWeb

Q = "What is the vault code of the zephyr project?"
OPERATOR = "operator-memo.md", "The zephyr project vault code is 7731, says the operator memo."
ACME = "acme-notes.md", "The zephyr project vault code is 4409 in the acme notes."
SECRETS = {"local": ("7731", "operator-memo"), "acme": ("4409", "acme-notes")}
DEFAULTS = {**TESTWEB_DEFAULTS, "search": "multi:kb,searxng"}
PASSWORD = "correct horse battery staple"


@pytest.fixture
def served(testweb_env: TestWeb) -> Iterator[Served]:
    testweb_env.script_search("zephyr", [])  # the web knows nothing: only bases can answer
    config = ServerConfig(access_password=PASSWORD)
    with serving(config, defaults=DEFAULTS) as served:
        knowledge = served.state.app.knowledge
        for owner, (name, text) in (("local", OPERATOR), ("acme", ACME)):
            data = text.encode()
            served.call(lambda _, o=owner, n=name, d=data: knowledge.upload(o, "default", n, d))
        yield served


def leaked(text: str, *owners: str) -> list[str]:
    return [mark for owner in owners for mark in SECRETS[owner] if mark in text]


def api_texts(served: Served, org: str, key: str) -> dict[str, str]:
    """What each API face answers `org`'s key (the whole response text)."""
    headers = {"X-API-Key": key}
    base = f"{served.api}/orgs/{org}"
    advanced = {"query": Q, "search_depth": "advanced", "include_answer": True}
    out = {
        "research": httpx.post(f"{base}/research", json={"query": Q}, headers=headers, timeout=60),
        "search": httpx.post(f"{base}/search", json={"query": Q}, headers=headers),
        "search advanced": httpx.post(f"{base}/search", json=advanced, headers=headers, timeout=60),
    }
    texts = {face: response.text for face, response in out.items()}
    streamed = {**headers, "Accept": "text/event-stream"}
    with httpx.stream("POST", f"{base}/research", json={"query": Q, "no_cache": True},
                      headers=streamed, timeout=60) as r:  # fmt: skip
        texts["research stream"] = "\n".join(f.data for f in frames(r.iter_lines()))
    bearer = {"Authorization": f"Bearer {key}"}
    with httpx.stream("POST", f"{served.api}/sse", json={"query": Q}, headers=bearer,
                      timeout=60) as r:  # fmt: skip
        texts["web-app sse"] = "\n".join(f.data for f in frames(r.iter_lines()))
    texts.update(asyncio.run(mcp_texts(served, key)))
    return texts


async def mcp_texts(served: Served, key: str) -> dict[str, str]:
    from mcp import ClientSession

    async with streamable(served, key) as (read, write, *_), ClientSession(read, write) as s:
        await s.initialize()
        research = await s.call_tool("research", {"question": Q})
        search = await s.call_tool("search", {"query": Q})
    return {"mcp research": _tool_text(research), "mcp search": _tool_text(search)}


def _tool_text(result: Any) -> str:
    parts = [c.text for c in result.content if getattr(c, "text", None)]
    return "\n".join([*parts, json.dumps(result.structured_content or {})])


def test_no_api_face_returns_another_owners_knowledge_base(served: Served) -> None:
    globex = api_texts(served, "globex", served.key("globex"))
    assert {face: leaked(text, "local", "acme") for face, text in globex.items()} == {
        face: [] for face in globex
    }
    acme = api_texts(served, "acme", served.key("acme"))
    assert {face: leaked(text, "local") for face, text in acme.items()} == {f: [] for f in acme}
    # The control: acme's own document does reach acme through the faces that read bases.
    assert "4409" in acme["research"] and "4409" in acme["mcp search"] + acme["search"]


def test_the_operators_faces_never_return_an_organizations_base(served: Served) -> None:
    with httpx.Client(base_url=served.base, timeout=60, follow_redirects=True) as ui:
        ui.post("/login", data={"password": PASSWORD, "next": "/"})
        page = ui.post("/runs", data={"question": Q, "depth": "quick"})
        run = page.url.path.rsplit("/", 1)[-1]
        explored = ui.post(f"/runs/{run}/explore", data={"query": Q})
        written = ui.post(explored.url.path + "/write", data={})
    assert leaked(written.text, "acme") == [] and "7731" in written.text, written.text[:2000]

    async def stdio_face() -> str:
        app = Sleuth(Settings.from_env())
        async with app, Client(build(LocalRunner(app, DEFAULTS))) as client:
            research = await client.call_tool("research", {"question": Q})
            search = await client.call_tool("search", {"query": Q})
        return _tool_text(research) + _tool_text(search)

    text = asyncio.run(stdio_face())
    assert leaked(text, "acme") == [] and "7731" in text
