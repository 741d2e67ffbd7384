"""`sleuth mcp`: the tools over stdio, running in this process on one `Sleuth` (no web server,
no keys: the client that started the process is the user). Runs are saved as sessions like
`sleuth ask` runs; stdout carries only the protocol."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from contextlib import aclosing
from typing import Any

from mcp.server.mcpserver import Context

from ...app.application import Sleuth
from ...events import Event
from ...settings import Settings
from ...types import SearchResult
from .tools import build


class LocalRunner:
    def __init__(self, app: Sleuth, defaults: Mapping[str, Any]) -> None:
        self.app = app
        self.defaults = dict(defaults)  # the command line's settings (search backend, model...)

    async def research(
        self, ctx: Context, question: str, values: dict[str, Any]
    ) -> AsyncIterator[Event]:
        events = self.app.stream(question, **{**self.defaults, **values})
        async with aclosing(events):  # type: ignore[type-var]
            async for event in events:
                yield event

    async def search(
        self, ctx: Context, query: str, limit: int, values: dict[str, Any]
    ) -> list[SearchResult]:
        return await self.app.search(query, limit=limit, **{**self.defaults, **values})


def serve_stdio(values: Mapping[str, Any], settings: Settings | None = None) -> None:
    """Serve until the client closes stdin; `settings` as `sleuth mcp` resolved them (default:
    resolved from the environment as every face does)."""

    async def main() -> None:
        async with Sleuth(settings or Settings.from_env()) as app:
            await build(LocalRunner(app, values)).run_stdio_async()

    asyncio.run(main())
