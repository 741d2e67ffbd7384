"""Google Gemini streaming through the official `google-genai` SDK (the sleuth[google] extra).

Calls `streamGenerateContent?alt=sse` on the Gemini Developer API (or `base_url`); system
messages go to `system_instruction`, assistant turns are the `model` role. Each key is sent as
`x-goog-api-key` on the request, so one client serves every key of the ring. Parts marked
`thought` (thinking models, asked to include their thought summaries) come out as `Reasoning`
items, never as answer text. Usage is the last chunk's `usageMetadata`: prompt tokens in,
candidates plus thoughts tokens out (Gemini bills thinking as output).

Errors: a 429's wait comes from `Retry-After` or, as Gemini sends it, the `RetryInfo` detail's
`retryDelay` ("37s"); an invalid key is a 400 with reason `API_KEY_INVALID`, treated as the 401
it means (the key leaves the ring). The SDK's own retries are off: `retry.py` decides.
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator, Mapping, Sequence
from contextlib import aclosing
from typing import Any, cast

import httpx2
from google import genai
from google.genai import errors, types

from ..errors import LLMError
from ..fetch.tls import tls_context
from ..ports import Message, ModelItem, Reasoning, TokenUsage
from .base import ProviderChat, transport_failure
from .clients import ClientPool
from .keys import NO_KEY, shared_ring
from .meter import Meter
from .retry import Failure, RetryPolicy, error_detail, parse_retry_after

# Models that think and can return thought summaries; older ones refuse a thinking config.
_THINKS = re.compile(r"gemini-(2\.5|[3-9])|thinking", re.IGNORECASE)
_DELAY = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")


class _Client:
    """The SDK client and the HTTP client it sends through, closed together."""

    def __init__(self, base_url: str | None, timeout_s: float) -> None:
        self.http = httpx2.AsyncClient(verify=tls_context(), timeout=timeout_s)
        options = types.HttpOptions(
            base_url=base_url,
            timeout=int(timeout_s * 1000),
            httpx_async_client=self.http,  # also keeps the SDK off aiohttp when installed
        )
        self.sdk = genai.Client(vertexai=False, api_key=NO_KEY, http_options=options)

    async def close(self) -> None:
        self.sdk.close()  # the SDK's own (unused) synchronous HTTP client
        await self.http.aclose()


class GeminiChat(ProviderChat):
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
        ring = shared_ring(f"google:{base_url}", api_keys)
        super().__init__(
            model,
            ring,
            retry,
            meter,
            timeout_s,
            where=base_url or "https://generativelanguage.googleapis.com",
        )
        self._owns_client = clients is None
        self._client = (clients or ClientPool()).get(
            ("google", base_url, timeout_s), lambda: _Client(base_url, timeout_s)
        )

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.close()

    async def _attempt(
        self, key: str, messages: Sequence[Message], max_tokens: int
    ) -> AsyncGenerator[ModelItem, None]:
        stream = await self._client.sdk.aio.models.generate_content_stream(
            model=self.name,
            contents=_contents(messages),
            config=self._config(key, messages, max_tokens),
        )
        usage: Any = None
        async with aclosing(
            cast("AsyncGenerator[types.GenerateContentResponse, None]", stream)
        ) as chunks:
            async for chunk in chunks:
                _refuse_blocked(chunk)
                usage = chunk.usage_metadata or usage
                for part in _parts(chunk):
                    if part.text and part.thought:
                        yield Reasoning(part.text)
                    elif part.text:
                        yield part.text
        if usage is not None:
            yield self._usage(usage)

    def _config(
        self, key: str, messages: Sequence[Message], max_tokens: int
    ) -> types.GenerateContentConfig:
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        thinking = (
            types.ThinkingConfig(include_thoughts=True) if _THINKS.search(self.name) else None
        )
        return types.GenerateContentConfig(
            system_instruction=system or None,
            max_output_tokens=max_tokens,
            thinking_config=thinking,
            http_options=types.HttpOptions(headers={"x-goog-api-key": key}),
        )

    def _usage(self, usage: types.GenerateContentResponseUsageMetadata) -> TokenUsage:
        output = (usage.candidates_token_count or 0) + (usage.thoughts_token_count or 0)
        return TokenUsage(self.name, usage.prompt_token_count or 0, output)

    def _classify(self, exc: BaseException) -> Failure | None:
        if isinstance(exc, errors.APIError):
            return _api_failure(exc)
        return transport_failure(exc, self.timeout_s)


def _api_failure(exc: errors.APIError) -> Failure:
    body = exc.details if isinstance(exc.details, Mapping) else {}
    detail = error_detail(body, exc.message or exc.status or f"HTTP {exc.code}")
    if exc.code is None or exc.code < 400:
        # An error object inside a 200 stream: transient.
        return Failure(None, f"stream error: {detail}")
    details = _error_details(body)
    if exc.code == 400 and any(d.get("reason") == "API_KEY_INVALID" for d in details):
        return Failure(401, detail)  # what Gemini answers for a wrong key
    headers = getattr(exc.response, "headers", None) or {}
    wait = parse_retry_after(headers)
    return Failure(exc.code, detail, _retry_delay(details) if wait is None else wait)


def _error_details(body: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    inner = body.get("error", body)
    details = inner.get("details") if isinstance(inner, Mapping) else None
    return [d for d in details if isinstance(d, Mapping)] if isinstance(details, list) else []


def _retry_delay(details: list[Mapping[str, Any]]) -> float | None:
    """Seconds from a `google.rpc.RetryInfo` detail's `retryDelay` ("37s", "0.5s")."""
    for item in details:
        if str(item.get("@type", "")).endswith("google.rpc.RetryInfo"):
            match = _DELAY.match(str(item.get("retryDelay", "")))
            if match:
                return float(match.group(1))
    return None


def _refuse_blocked(chunk: types.GenerateContentResponse) -> None:
    """A prompt Gemini blocks gets no candidates, only `promptFeedback.blockReason`."""
    feedback = chunk.prompt_feedback
    if feedback is not None and feedback.block_reason is not None:
        err = LLMError(f"LLM endpoint refused the prompt: blocked ({feedback.block_reason.value})")
        err.retryable = False
        raise err


def _parts(chunk: types.GenerateContentResponse) -> list[types.Part]:
    candidates = chunk.candidates or []
    content = candidates[0].content if candidates else None
    return list(content.parts or []) if content is not None else []


def _contents(messages: Sequence[Message]) -> list[types.Content]:
    """User and model turns; the system prompt goes to the config's `system_instruction`."""
    return [
        types.Content(
            role="model" if m.role == "assistant" else "user", parts=[types.Part(text=m.content)]
        )
        for m in messages
        if m.role != "system"
    ]
