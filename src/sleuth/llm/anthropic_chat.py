"""Anthropic Messages streaming through the official `anthropic` SDK.

System messages go to `system=`; the stream's `message_start` carries the input tokens and
`message_delta` the output tokens. Only `text_delta` is answer text; `thinking_delta` (extended
thinking) comes out as `Reasoning` items.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from typing import cast

import anthropic
from anthropic.types import MessageParam

from ..fetch.tls import tls_context
from ..ports import Message, ModelItem, Reasoning, TokenUsage
from .base import ProviderChat, transport_failure
from .clients import ClientPool
from .keys import NO_KEY, shared_ring
from .meter import Meter
from .retry import Failure, RetryPolicy, error_detail, parse_retry_after


class AnthropicChat(ProviderChat):
    def __init__(
        self,
        model: str,
        api_keys: tuple[str, ...] = (),
        base_url: str | None = None,
        timeout_s: float = 60.0,
        retry: RetryPolicy | None = None,
        meter: Meter | None = None,
        clients: ClientPool | None = None,
    ) -> None:
        ring = shared_ring(f"anthropic:{base_url}", api_keys)
        super().__init__(
            model, ring, retry, meter, timeout_s, where=base_url or "https://api.anthropic.com"
        )
        self._owns_client = clients is None
        self._client = (clients or ClientPool()).get(
            ("anthropic", base_url, timeout_s),
            lambda: anthropic.AsyncAnthropic(
                api_key=NO_KEY,
                base_url=base_url,
                timeout=timeout_s,
                max_retries=0,
                http_client=anthropic.DefaultAsyncHttpxClient(verify=tls_context()),
            ),
        )

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.close()

    async def _attempt(
        self, key: str, messages: Sequence[Message], max_tokens: int
    ) -> AsyncGenerator[ModelItem, None]:
        client = self._client.with_options(api_key=key)
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        stream = await client.messages.create(
            model=self.name,
            max_tokens=max_tokens,
            messages=_wire_messages(messages),
            system=system or anthropic.omit,
            stream=True,
        )
        input_tokens = output_tokens = 0
        async with stream:
            async for event in stream:
                if event.type == "message_start":
                    input_tokens = event.message.usage.input_tokens
                elif event.type == "content_block_delta" and event.delta.type == "text_delta":
                    yield event.delta.text
                elif event.type == "content_block_delta" and event.delta.type == "thinking_delta":
                    yield Reasoning(event.delta.thinking)
                elif event.type == "message_delta":
                    output_tokens = event.usage.output_tokens
        yield TokenUsage(self.name, input_tokens, output_tokens)

    def _classify(self, exc: BaseException) -> Failure | None:
        if isinstance(exc, anthropic.APITimeoutError):
            return Failure(None, f"timed out after {self.timeout_s:g}s")
        if isinstance(exc, anthropic.APIConnectionError):
            return Failure(None, f"connection failed: {exc.__cause__ or exc}")
        if isinstance(exc, anthropic.APIStatusError):
            detail = error_detail(exc.body, exc.message)
            if exc.status_code < 400:
                # An `event: error` inside a 200 stream (e.g. overloaded_error): transient.
                return Failure(None, f"stream error: {detail}")
            headers = exc.response.headers
            return Failure(exc.status_code, detail, parse_retry_after(headers))
        if isinstance(exc, anthropic.APIError):
            # An error object inside a 200 stream (e.g. a router's upstream failure): transient.
            return Failure(None, f"stream error: {error_detail(exc.body, exc.message)}")
        return transport_failure(exc, self.timeout_s)


def _wire_messages(messages: Sequence[Message]) -> list[MessageParam]:
    """User/assistant turns; the Messages API takes the system prompt separately."""
    turns = [m for m in messages if m.role != "system"]
    return [cast("MessageParam", {"role": m.role, "content": m.content}) for m in turns]
