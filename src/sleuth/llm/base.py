"""What every chat provider does around its own wire format.

Budget check before the call, retries until the first delta, reasoning blocks moved out of the
text into `Reasoning` items, one TokenUsage at the end (the API's numbers, or ~4 characters per
token when a server sends none), and the call's tokens and time recorded on the meter.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from contextlib import aclosing

import httpx2

from ..errors import LLMError
from ..ports import Message, ModelItem, Reasoning, TokenUsage
from .keys import KeyRing
from .meter import Meter
from .retry import Classifier, Failure, RetryPolicy, retrying
from .thinking import ReasoningFilter

# A written answer is a few thousand characters; a reply past this is a runaway or hostile
# server (a 60 MB reply was accepted and saved) and is refused rather than kept in memory.
MAX_REPLY_CHARS = 2_000_000

RawStream = Callable[[str], AsyncGenerator[ModelItem, None]]


class ProviderChat:
    """The `ChatModel.stream` every provider shares; a provider says how one attempt streams
    with a given key (`_attempt`) and which errors are worth a retry (`_classify`)."""

    name: str
    _ring: KeyRing
    _retry: RetryPolicy
    _meter: Meter | None

    def __init__(
        self,
        model: str,
        ring: KeyRing,
        retry: RetryPolicy | None,
        meter: Meter | None,
        timeout_s: float,
        where: str = "",
    ) -> None:
        self.name = model
        self.where = where  # the endpoint, named in every error: "which model failed?"
        self.timeout_s = timeout_s
        self._ring = ring
        self._retry = retry or RetryPolicy()
        self._meter = meter

    def stream(
        self, messages: Sequence[Message], *, max_tokens: int = 2048
    ) -> AsyncIterator[ModelItem]:
        def raw(key: str) -> AsyncGenerator[ModelItem, None]:
            return self._attempt(key, messages, max_tokens)

        return provider_stream(
            self.name,
            messages,
            raw,
            ring=self._ring,
            retry=self._retry,
            classify=self._classify,
            meter=self._meter,
            where=self.where,
        )

    def _attempt(
        self, key: str, messages: Sequence[Message], max_tokens: int
    ) -> AsyncGenerator[ModelItem, None]:
        raise NotImplementedError

    def _classify(self, exc: BaseException) -> Failure | None:
        raise NotImplementedError


async def provider_stream(
    model: str,
    messages: Sequence[Message],
    raw: RawStream,
    *,
    ring: KeyRing,
    retry: RetryPolicy,
    classify: Classifier,
    meter: Meter | None,
    where: str = "",
) -> AsyncGenerator[ModelItem, None]:
    if meter is not None:
        meter.check_budget()
    started = time.monotonic()
    flt = ReasoningFilter()
    raw_chars = 0
    usage: TokenUsage | None = None
    try:
        attempts = retrying(raw, ring=ring, policy=retry, classify=classify)
        async with aclosing(attempts) as items:
            async for item in items:
                if isinstance(item, TokenUsage):
                    usage = item
                    continue
                raw_chars += len(item if isinstance(item, str) else item.text)
                if raw_chars > MAX_REPLY_CHARS:
                    raise LLMError(
                        f"the model's reply passed {MAX_REPLY_CHARS:,} characters; refused"
                    )
                for piece in _separated(flt, item):
                    yield piece
        tail = flt.flush()
        if thought := flt.take_reasoning():
            yield Reasoning(thought)
        if tail:
            yield tail
    except LLMError as exc:
        raise _at(exc, f"{model} at {where}" if where else "") from exc
    finally:
        if meter is not None:
            meter.add_ms(int((time.monotonic() - started) * 1000))
    usage = usage or estimate_usage(model, messages, raw_chars)
    if meter is not None:
        meter.record(usage)
    yield usage


def _at(exc: LLMError, where: str) -> LLMError:
    """`exc` with the model and endpoint named up front, keeping whether it is retryable."""
    if not where:
        return exc
    named = LLMError(f"{where}: {exc}", setting=exc.setting)
    named.retryable = exc.retryable
    return named


def _separated(flt: ReasoningFilter, item: str | Reasoning) -> list[str | Reasoning]:
    """A delta as its reasoning (from `<think>` tags, or sent apart by the API) and its text."""
    if isinstance(item, Reasoning):
        return [item] if item.text else []
    visible = flt.feed(item)
    thought = flt.take_reasoning()
    return [*([Reasoning(thought)] if thought else []), *([visible] if visible else [])]


def estimate_usage(model: str, messages: Sequence[Message], output_chars: int) -> TokenUsage:
    """Roughly 4 characters per token, for servers that report no usage."""
    input_chars = sum(len(m.content) for m in messages)
    return TokenUsage(model, -(-input_chars // 4), -(-output_chars // 4))


def transport_failure(exc: BaseException, timeout_s: float) -> Failure | None:
    """Timeouts and dropped connections raised by httpx2 while a stream is being read."""
    if isinstance(exc, httpx2.TimeoutException):
        return Failure(None, f"timed out after {timeout_s:g}s")
    if isinstance(exc, httpx2.TransportError):
        return Failure(None, f"connection failed: {exc or type(exc).__name__}")
    return None
