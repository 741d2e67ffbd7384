"""Chat Completions streaming through the official `openai` SDK.

Works with api.openai.com and any OpenAI-compatible server (Ollama, vLLM, llama.cpp,
OpenRouter). Some of those send no usage (estimated instead) and some stream reasoning in a
`reasoning_content` field (DeepSeek, vLLM, llama.cpp) or `reasoning` (OpenRouter): it comes out
as `Reasoning` items, never as answer text; only `content` is the answer.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from typing import Any, cast

import openai
from openai.types.chat import ChatCompletionMessageParam

from ..fetch.tls import tls_context
from ..ports import Message, ModelItem, Reasoning, TokenUsage
from .base import ProviderChat, transport_failure
from .clients import ClientPool
from .keys import NO_KEY, shared_ring
from .meter import Meter
from .retry import Failure, RetryPolicy, error_detail, parse_retry_after


class OpenAIChat(ProviderChat):
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
        ring = shared_ring(f"openai:{base_url}", api_keys)
        super().__init__(
            model, ring, retry, meter, timeout_s, where=base_url or "https://api.openai.com/v1"
        )
        # api.openai.com rejects `max_tokens` for reasoning models; compatible servers may not
        # know the newer `max_completion_tokens`.
        self._official = base_url is None or "//api.openai.com" in base_url
        self._owns_client = clients is None
        self._client = (clients or ClientPool()).get(
            ("openai", base_url, timeout_s),
            lambda: openai.AsyncOpenAI(
                api_key=NO_KEY,
                base_url=base_url,
                timeout=timeout_s,
                max_retries=0,
                http_client=openai.DefaultAsyncHttpxClient(verify=tls_context()),
            ),
        )

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.close()

    def _authorized(self, key: str) -> openai.AsyncOpenAI:
        """The shared client sending `key`."""
        return self._client.with_options(api_key=key)

    async def _attempt(
        self, key: str, messages: Sequence[Message], max_tokens: int
    ) -> AsyncGenerator[ModelItem, None]:
        client = self._authorized(key)
        stream = await client.chat.completions.create(
            model=self.name,
            messages=_wire_messages(messages),
            stream=True,
            stream_options={"include_usage": True},
            max_completion_tokens=max_tokens if self._official else openai.omit,
            max_tokens=openai.omit if self._official else max_tokens,
        )
        usage: TokenUsage | None = None
        async with stream:
            async for chunk in stream:
                if chunk.usage is not None:
                    usage = self._usage(chunk.usage, chunk.model)
                for choice in chunk.choices:
                    if thought := _reasoning(choice.delta):
                        yield Reasoning(thought)
                    if choice.delta.content:
                        yield choice.delta.content
        if usage is not None:
            yield usage

    def _usage(self, usage: Any, served: str | None) -> TokenUsage:
        """The call's tokens, counted under the model asked for (`served` is what the reply
        says answered it)."""
        return TokenUsage(self.name, usage.prompt_tokens or 0, usage.completion_tokens or 0)

    def _classify(self, exc: BaseException) -> Failure | None:
        if isinstance(exc, openai.APITimeoutError):
            return Failure(None, f"timed out after {self.timeout_s:g}s")
        if isinstance(exc, openai.APIConnectionError):
            return Failure(None, f"connection failed: {exc.__cause__ or exc}")
        if isinstance(exc, openai.APIStatusError):
            headers = exc.response.headers
            return Failure(
                exc.status_code, error_detail(exc.body, exc.message), parse_retry_after(headers)
            )
        if isinstance(exc, openai.APIError):
            # An error object inside a 200 stream (e.g. a router's upstream failure): transient.
            return Failure(None, f"stream error: {error_detail(exc.body, exc.message)}")
        return transport_failure(exc, self.timeout_s)


def _reasoning(delta: Any) -> str | None:
    """The reasoning a compatible server adds to a delta (not part of the SDK's typed model)."""
    for name in ("reasoning_content", "reasoning"):
        value = getattr(delta, name, None)
        if isinstance(value, str) and value:
            return value
    return None


def _wire_messages(messages: Sequence[Message]) -> list[ChatCompletionMessageParam]:
    return [
        cast("ChatCompletionMessageParam", {"role": m.role, "content": m.content}) for m in messages
    ]
