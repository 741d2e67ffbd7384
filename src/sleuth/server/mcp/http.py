"""MCP over HTTP inside `sleuth serve`: streamable HTTP at `/api/mcp` (stateless: any replica
answers any request) and the legacy SSE transport at `/api/mcp/sse` (its messages posted to
`/api/mcp/sse/messages/`).

Every HTTP request to them passes the same check as the SSE API (`access.identify`: an API key
with the research scope, or the access password); the caller's organization rides on the request to
the tool, whose runs are admitted, metered and shared like the API's (`live.py`). The SDK's DNS
rebinding protection stays on when the server listens on loopback.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from fastapi import FastAPI
from mcp.server.mcpserver import Context
from starlette.requests import HTTPConnection
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from ...app.caller import Caller as Principal
from ...events import Event
from ...types import SearchResult
from ..access import identify
from ..errors import ApiError
from ..state import State
from .tools import build

HTTP_PATH = "/api/mcp"
SSE_PATH = "/api/mcp/sse"


class Gate:
    """An ASGI wrapper that refuses callers without a key or the password (401 JSON) and
    hands the caller to the tools through the request's state."""

    def __init__(self, app: ASGIApp, state: State) -> None:
        self.app, self.state = app, state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            try:
                found = await identify(HTTPConnection(scope), "research")
            except ApiError as exc:
                await exc.response()(scope, receive, send)
                return
            state = scope.setdefault("state", {})
            state["principal"], state["org"] = found, found.org
        await self.app(scope, receive, send)


class ServiceRunner:
    """Runs for MCP over HTTP: the service's own (admitted, metered, shared, cached)."""

    def __init__(self, state: State) -> None:
        self.service = state.service

    async def research(
        self, ctx: Context, question: str, values: dict[str, Any]
    ) -> AsyncIterator[Event]:
        following = await self.service.submit(_principal(ctx), {"query": question, **values})
        async with following:
            await following.admitted()
            async for event in following.events():
                yield event

    async def search(
        self, ctx: Context, query: str, limit: int, values: dict[str, Any]
    ) -> list[SearchResult]:
        found = await self.service.search(_principal(ctx), query, values, limit=limit)
        return found.results


def _principal(ctx: Context) -> Principal:
    request = ctx.request_context.request
    found = getattr(getattr(request, "state", None), "principal", None)
    if not isinstance(found, Principal):  # the gate sets it on every request that gets here
        raise RuntimeError("an MCP request reached a tool without passing the gate")
    return found


def mount(api: FastAPI, state: State) -> Callable[[], AbstractAsyncContextManager[None]]:
    """Add the MCP routes to `api`; returns what the app's lifespan must run around serving."""
    server = build(ServiceRunner(state))
    host = state.config.host
    streamable = server.streamable_http_app(
        streamable_http_path=HTTP_PATH, stateless_http=True, host=host
    )
    legacy = server.sse_app(sse_path=SSE_PATH, message_path=SSE_PATH + "/messages/", host=host)
    api.router.routes += [
        Route(HTTP_PATH, endpoint=Gate(streamable, state), methods=["GET", "POST", "DELETE"]),
        Route(SSE_PATH, endpoint=Gate(legacy, state), methods=["GET"]),
        Route(SSE_PATH + "/messages/", endpoint=Gate(legacy, state), methods=["POST"]),
    ]
    return server.session_manager.run
