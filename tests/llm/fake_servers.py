"""Loopback fakes of the OpenAI Chat Completions (also as Azure OpenAI serves it), Anthropic
Messages and Gemini `streamGenerateContent` streaming endpoints.

They speak the documented SSE wire formats (`data: {chat.completion.chunk}` … `data: [DONE]`;
`event: message_start` / `content_block_delta` / `message_delta` / `message_stop`;
`data: {GenerateContentResponse}` with `usageMetadata` and `thought` parts) and the documented
error bodies (Gemini's `{"error": {"code", "message", "status", "details"}}`), so the real SDKs
are exercised end to end. Each test scripts replies.
"""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

Dialect = Literal["openai", "anthropic", "google"]


@dataclass
class Reply:
    chunks: list[str] = field(default_factory=list)
    usage: tuple[int, int] | None = (12, 7)  # (input, output); None: send no usage at all
    status: int = 200
    error: str = "scripted error"
    headers: dict[str, str] = field(default_factory=dict)
    hang: bool = False  # accept the request and never answer
    hang_after: int | None = None  # send this many chunks, then stall
    # Reasoning deltas: OpenAI-style `reasoning_content`, or an Anthropic thinking block.
    reasoning: list[str] = field(default_factory=list)
    raw: str | None = None  # a verbatim SSE body instead of the scripted chunks
    model: str | None = None  # the model the reply names (default: the one asked for)
    details: list[dict[str, Any]] = field(default_factory=list)  # Gemini's error details
    thought_tokens: int = 0  # Gemini's thoughtsTokenCount


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def key(self) -> str:
        auth = self.headers.get("authorization", "")
        if auth:
            return auth.removeprefix("Bearer ")
        for name in ("x-api-key", "api-key", "x-goog-api-key"):  # Anthropic, Azure, Gemini
            if name in self.headers:
                return self.headers[name]
        return ""


class FakeLLMServer:
    def __init__(
        self, dialect: Dialect, responder: Callable[[Received], Reply] | None = None
    ) -> None:
        self.dialect = dialect
        self.responder = responder  # answers each request from its content (concurrent runs)
        self.replies: deque[Reply] = deque()
        self.received: list[Received] = []
        self.stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def url(self) -> str:
        return self.root + ("/v1" if self.dialect == "openai" else "")

    def script(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def start(self) -> FakeLLMServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()


def _handler_for(server: FakeLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        disable_nagle_algorithm = True  # small SSE writes would otherwise wait on delayed ACKs

        def log_message(self, format: str, *args: Any) -> None:
            return None

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            headers = {k.lower(): v for k, v in self.headers.items()}
            server.received.append(Received(self.path, headers, body))
            if server.responder is not None:
                reply = server.responder(server.received[-1])
            elif server.replies:
                reply = server.replies.popleft()
            else:
                reply = Reply(status=500, error="fake server: no scripted reply left")
            if reply.hang:
                server.stopping.wait(10)
                return
            if reply.status != 200:
                self._send_error(reply)
                return
            self._send_stream(reply, reply.model or _model_of(self.path, body))

        def _send_error(self, reply: Reply) -> None:
            data = json.dumps(_error_body(server.dialect, reply)).encode()
            self.send_response(reply.status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def _send_stream(self, reply: Reply, model: str) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.end_headers()
            if reply.raw is not None:
                self._write([reply.raw])
                return
            build = {
                "openai": _openai_events,
                "anthropic": _anthropic_events,
                "google": _gemini_events,
            }[server.dialect]
            head, texts, tail = build(reply, model)
            if reply.hang_after is not None:
                self._write([*head, *texts[: reply.hang_after]])
                server.stopping.wait(10)
                return
            self._write([*head, *texts, *tail])

        def _write(self, events: list[str]) -> None:
            self.wfile.write("".join(events).encode())
            self.wfile.flush()

    return Handler


def _model_of(path: str, body: dict[str, Any]) -> str:
    """The model asked for: in the body, or in Gemini's `/v1beta/models/{model}:verb` path."""
    if "model" in body:
        return str(body["model"])
    match = re.search(r"/models/([^/:?]+)", path)
    return match.group(1) if match else "model"


_GOOGLE_STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
                  404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL",
                  503: "UNAVAILABLE"}  # fmt: skip


def _error_body(dialect: Dialect, reply: Reply) -> dict[str, Any]:
    kind = {401: "authentication_error", 429: "rate_limit_error"}.get(reply.status, "api_error")
    if dialect == "google":
        status = _GOOGLE_STATUS.get(reply.status, "UNKNOWN")
        error = {"code": reply.status, "message": reply.error, "status": status}
        return {"error": {**error, **({"details": reply.details} if reply.details else {})}}
    if dialect == "openai":
        return {"error": {"message": reply.error, "type": kind, "param": None, "code": None}}
    return {"type": "error", "error": {"type": kind, "message": reply.error}}


Events = tuple[list[str], list[str], list[str]]  # before the text, one per text chunk, after


def _openai_events(reply: Reply, model: str) -> Events:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        data = {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return f"data: {json.dumps(data)}\n\n"

    head = [chunk({"role": "assistant", "content": ""})]
    head += [chunk({"reasoning_content": r}) for r in reply.reasoning]
    tail = [chunk({}, "stop")]
    if reply.usage is not None:
        inp, out = reply.usage
        usage = {"prompt_tokens": inp, "completion_tokens": out, "total_tokens": inp + out}
        data = {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": model,
            "choices": [],
            "usage": usage,
        }
        tail.append(f"data: {json.dumps(data)}\n\n")
    tail.append("data: [DONE]\n\n")
    return head, [chunk({"content": c}) for c in reply.chunks], tail


def _anthropic_events(reply: Reply, model: str) -> Events:
    def event(name: str, data: dict[str, Any]) -> str:
        return f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n"

    inp, out = reply.usage or (0, 0)
    message: dict[str, Any] = {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": model,
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": inp, "output_tokens": 1},
    }
    head = [event("message_start", {"message": message}), *_thinking_block(reply.reasoning)]
    at = 1 if reply.reasoning else 0  # the text block's index
    head += [
        event("content_block_start", {"index": at, "content_block": {"type": "text", "text": ""}}),
        event("ping", {}),
    ]
    texts = [
        event("content_block_delta", {"index": at, "delta": {"type": "text_delta", "text": c}})
        for c in reply.chunks
    ]
    tail = [
        event("content_block_stop", {"index": at}),
        event(
            "message_delta",
            {
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": out},
            },
        ),
        event("message_stop", {}),
    ]
    return head, texts, tail


def _thinking_block(thoughts: list[str]) -> list[str]:
    """An extended-thinking content block (index 0) as the Messages API streams it."""
    if not thoughts:
        return []

    def event(name: str, data: dict[str, Any]) -> str:
        return f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n"

    block = {"type": "thinking", "thinking": "", "signature": ""}
    deltas = [
        event(
            "content_block_delta", {"index": 0, "delta": {"type": "thinking_delta", "thinking": t}}
        )
        for t in thoughts
    ]
    signature = {"type": "signature_delta", "signature": "sig-fake"}
    return [
        event("content_block_start", {"index": 0, "content_block": block}),
        *deltas,
        event("content_block_delta", {"index": 0, "delta": signature}),
        event("content_block_stop", {"index": 0}),
    ]


def _gemini_events(reply: Reply, model: str) -> Events:
    """`streamGenerateContent?alt=sse`: one GenerateContentResponse per `data:` line, thought
    parts first, the last chunk with the finish reason and the full usageMetadata."""

    def chunk(parts: list[dict[str, Any]], finish: str | None = None) -> str:
        candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
        if finish:
            candidate["finishReason"] = finish
        data: dict[str, Any] = {
            "candidates": [candidate],
            "modelVersion": model,
            "responseId": "resp-fake",
        }
        if finish and reply.usage is not None:
            inp, out = reply.usage
            usage = {"promptTokenCount": inp, "candidatesTokenCount": out}
            if reply.thought_tokens:
                usage["thoughtsTokenCount"] = reply.thought_tokens
            data["usageMetadata"] = {
                **usage,
                "totalTokenCount": inp + out + reply.thought_tokens,
            }
        return f"data: {json.dumps(data)}\r\n\r\n"

    head = [chunk([{"text": t, "thought": True}]) for t in reply.reasoning]
    texts = [chunk([{"text": c}]) for c in reply.chunks]
    return head, texts, [chunk([{"text": ""}], "STOP")]
