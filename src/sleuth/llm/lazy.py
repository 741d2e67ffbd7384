"""A chat model whose SDK loads in a worker thread on first use.

Importing an LLM SDK costs 0.3–0.5 s, more than a quick run spends on its first search. The
factory hands the engine this stand-in at once; the first call imports the SDK off the event
loop, so the import overlaps the search instead of delaying the whole run.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence

from ..ports import ChatModel, Message, ModelItem


class LazyChat:
    def __init__(self, name: str, build: Callable[[], ChatModel]) -> None:
        self.name = name
        self._build = build
        self._real: ChatModel | None = None
        self._building: asyncio.Future[ChatModel] | None = None

    async def model(self) -> ChatModel:
        if self._real is None:
            if self._building is None:
                self._building = asyncio.get_running_loop().run_in_executor(None, self._build)
            self._real = await asyncio.shield(self._building)
        return self._real

    def stream(
        self, messages: Sequence[Message], *, max_tokens: int = 2048
    ) -> AsyncIterator[ModelItem]:
        return self._stream(messages, max_tokens)

    async def _stream(
        self, messages: Sequence[Message], max_tokens: int
    ) -> AsyncIterator[ModelItem]:
        real = await self.model()
        async for item in real.stream(messages, max_tokens=max_tokens):
            yield item

    async def aclose(self) -> None:
        if self._real is None and self._building is not None:
            self._real = await self._building
        close = getattr(self._real, "aclose", None)
        if close is not None:
            await close()
