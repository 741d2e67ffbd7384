"""The Chat Completions wire format, as a research face: the request a chat client sends, and
the completion (or its chunks) and errors it expects, built from a Sleuth result.

A model name picks the research: `sleuth-quick` (seconds), `sleuth-deep` (a planned, multi-round
report), and either with `+kb` (the caller's knowledge base searched beside the web). The last
user message is the question; earlier turns reach the writer as context. The answer is the
cited markdown with its numbered sources; the sources ride along as hosted search-answer APIs
return them: a top-level `citations` list of URLs, and `sleuth`, the whole result.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ...limits import DEEP_ROUNDS, MAX_QUESTION_CHARS, QUICK

OWNER = "sleuth"
KB = "default"  # the knowledge base a +kb model searches (the caller's own)
CONTEXT_CHARS = 4000  # earlier turns given to the writer, newest kept
CHARS_PER_TOKEN = 4  # the estimate when no model wrote (the extractive writer counts no tokens)


@dataclass(frozen=True, slots=True)
class Model:
    id: str
    description: str
    values: Mapping[str, Any]


MODELS: Mapping[str, Model] = {
    m.id: m
    for m in (
        Model("sleuth-quick", "A cited answer in seconds", {"deep": QUICK}),
        Model("sleuth-deep", "A planned, multi-round cited report", {"deep": DEEP_ROUNDS}),
        Model("sleuth-quick+kb", "Quick, with your knowledge base", {"deep": QUICK, "kb": KB}),
        Model("sleuth-deep+kb", "Deep, with your knowledge base", {"deep": DEEP_ROUNDS, "kb": KB}),
    )
}


class Message(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[dict[str, Any]] | None = None


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="allow")

    include_usage: bool = False


class ChatBody(BaseModel):
    """What a chat client sends. Sampling options (temperature, top_p, max_tokens, stop, seed,
    n, penalties, user...) are accepted and ignored: the answer is research, not sampling."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(description="sleuth-quick, sleuth-deep, or either with +kb.")
    messages: list[Message] = Field(min_length=1, max_length=200)
    stream: bool = False
    stream_options: StreamOptions | None = None
    tools: list[dict[str, Any]] | None = Field(None, description="Not supported: must be empty.")


@dataclass(frozen=True, slots=True)
class Asked:
    question: str
    context: str  # earlier turns, for the writer


def text_of(content: str | list[dict[str, Any]] | None) -> str:
    if isinstance(content, str):
        return content
    parts = content or []
    return "\n".join(str(p.get("text", "")) for p in parts if p.get("type") == "text")


def asked(messages: Sequence[Message]) -> Asked | None:
    """The last user message as the question, the turns before it as context; None when no
    user message has text."""
    users = [i for i, m in enumerate(messages) if m.role == "user" and text_of(m.content).strip()]
    if not users:
        return None
    last = users[-1]
    earlier = [f"{m.role}: {text_of(m.content).strip()}" for m in messages[:last]
               if text_of(m.content).strip()]  # fmt: skip
    context = "\n".join(earlier)[-CONTEXT_CHARS:]
    return Asked(text_of(messages[last].content).strip()[: MAX_QUESTION_CHARS + 1], context)


def created() -> int:
    return int(time.time())


def completion(
    ident: str, model: str, content: str, result: Mapping[str, Any], usage: Mapping[str, int]
) -> dict[str, Any]:
    return {
        "id": ident, "object": "chat.completion", "created": created(), "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": "stop", "logprobs": None}],
        "usage": dict(usage), **extras(result),
    }  # fmt: skip


def chunk(
    ident: str,
    model: str,
    delta: Mapping[str, Any],
    *,
    finish: str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    choice = {"index": 0, "delta": dict(delta), "finish_reason": finish, "logprobs": None}
    return {"id": ident, "object": "chat.completion.chunk", "created": created(), "model": model,
            "choices": [choice], **(extra or {})}  # fmt: skip


def usage_chunk(ident: str, model: str, usage: Mapping[str, int]) -> dict[str, Any]:
    """The last chunk when `stream_options.include_usage` asks for it: no choices."""
    return {"id": ident, "object": "chat.completion.chunk", "created": created(), "model": model,
            "choices": [], "usage": dict(usage)}  # fmt: skip


def extras(result: Mapping[str, Any]) -> dict[str, Any]:
    """How the sources ride along: `citations` (the cited URLs, in number order) and `sleuth`
    (the whole result: citations with quotes, sources, confidence, verification, usage)."""
    return {"citations": [c["url"] for c in result.get("citations", [])], "sleuth": dict(result)}


def usage_of(
    result: Mapping[str, Any], question: str, context: str, content: str
) -> dict[str, int]:
    """Tokens the run's models read and wrote; when no model wrote (the extractive writer), an
    estimate from the text's length (4 characters a token), as `sleuth.usage` says."""
    llm = result.get("usage", {}).get("llm", {})
    prompt, written = int(llm.get("input_tokens") or 0), int(llm.get("output_tokens") or 0)
    if not prompt and not written:
        prompt = max(1, (len(question) + len(context)) // CHARS_PER_TOKEN)
        written = max(1, len(content) // CHARS_PER_TOKEN)
    return {"prompt_tokens": prompt, "completion_tokens": written,
            "total_tokens": prompt + written}  # fmt: skip


def sse(data: Mapping[str, Any] | str) -> bytes:
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return f"data: {text}\n\n".encode()


# -- errors: the OpenAI error body, so SDKs raise their usual exceptions ----------------------

ERROR_TYPES: Mapping[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "invalid_request_error",
    409: "invalid_request_error",
    413: "invalid_request_error",
    422: "invalid_request_error",
    429: "rate_limit_error",
}


def error_body(status: int, code: str, message: str, param: str | None = None) -> dict[str, Any]:
    kind = ERROR_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": kind, "param": param, "code": code.lower()}}
