from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

from sleuth.llm.retry import RetryPolicy
from sleuth.ports import Message, ModelItem, Reasoning, TokenUsage

QUESTION = [Message("system", "You answer from sources."), Message("user", "Why is the sky blue?")]


def fresh_keys(n: int) -> tuple[str, ...]:
    """Keys no other test used: a rejected key stays rejected for the whole process."""
    tag = uuid.uuid4().hex[:8]
    return tuple(f"sk-{tag}-{i}" for i in range(n))


class Sleeps:
    """Records the waits a RetryPolicy asks for instead of sleeping through them."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        await asyncio.sleep(0)

    def policy(self, attempts: int = 4) -> RetryPolicy:
        return RetryPolicy(attempts=attempts, base_s=0.01, max_s=20.0, sleep=self)


async def collect(stream: AsyncIterator[ModelItem]) -> tuple[list[str], TokenUsage]:
    """The answer text deltas and the usage; reasoning is left out."""
    texts, _, usage = await collect_all(stream)
    return texts, usage


async def collect_all(
    stream: AsyncIterator[ModelItem],
) -> tuple[list[str], list[str], TokenUsage]:
    """(answer deltas, reasoning deltas, usage)."""
    texts: list[str] = []
    thoughts: list[str] = []
    usages: list[TokenUsage] = []
    async for item in stream:
        if isinstance(item, TokenUsage):
            usages.append(item)
        elif isinstance(item, Reasoning):
            thoughts.append(item.text)
        else:
            texts.append(item)
    assert len(usages) == 1, "a stream ends with exactly one TokenUsage"
    assert usages[0] is item, "the TokenUsage comes last"
    return texts, thoughts, usages[0]
