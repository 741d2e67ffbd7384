"""Scripted fakes at Sleuth's boundaries, for engine and interface tests.

`FakeChatModel` implements `sleuth.ports.ChatModel` the way the real providers behave: the meter
(when given) is checked before each call and records each call's usage, reasoning blocks are
moved out of the text into `Reasoning` items, and one TokenUsage ends every stream.
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

from sleuth.llm.base import estimate_usage
from sleuth.llm.meter import Meter
from sleuth.llm.thinking import ReasoningFilter
from sleuth.ports import Message, ModelItem, Reasoning, TokenUsage


@dataclass(frozen=True)
class _Scripted:
    chunks: tuple[str, ...] = ()
    usage: tuple[int, int] | None = None
    error: BaseException | None = None


class FakeChatModel:
    def __init__(self, name: str = "fake-model", *, meter: Meter | None = None) -> None:
        self.name = name
        self.meter = meter
        self.calls: list[list[Message]] = []
        self._script: deque[_Scripted] = deque()

    def enqueue(self, text: str | list[str], usage: tuple[int, int] | None = None) -> None:
        """Script the next reply: one text or its stream chunks; usage (in, out) or estimated."""
        chunks = (text,) if isinstance(text, str) else tuple(text)
        self._script.append(_Scripted(chunks=chunks, usage=usage))

    def enqueue_error(self, exc: BaseException) -> None:
        """Script the next call to raise `exc` before any text, as a refused call would."""
        self._script.append(_Scripted(error=exc))

    def stream(
        self, messages: Sequence[Message], *, max_tokens: int = 2048
    ) -> AsyncIterator[ModelItem]:
        return self._reply(list(messages))

    async def _reply(self, messages: list[Message]) -> AsyncIterator[ModelItem]:
        if self.meter is not None:
            self.meter.check_budget()
        self.calls.append(messages)
        if not self._script:
            raise AssertionError(f"FakeChatModel: call {len(self.calls)} has no scripted reply")
        step = self._script.popleft()
        if step.error is not None:
            raise step.error
        flt = ReasoningFilter()
        for chunk in step.chunks:
            piece = flt.feed(chunk)
            if thought := flt.take_reasoning():
                yield Reasoning(thought)
            if piece:
                yield piece
        tail = flt.flush()
        if thought := flt.take_reasoning():
            yield Reasoning(thought)
        if tail:
            yield tail
        usage = self._usage(step, messages)
        if self.meter is not None:
            self.meter.record(usage)
        yield usage

    def _usage(self, step: _Scripted, messages: list[Message]) -> TokenUsage:
        if step.usage is None:
            return estimate_usage(self.name, messages, sum(len(c) for c in step.chunks))
        return TokenUsage(self.name, *step.usage)
