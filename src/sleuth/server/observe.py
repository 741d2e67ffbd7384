"""A request id on every response and log line, and one structured JSON access-log line per
request (org, route, status, duration, cost) — never a key or a body.

Written as plain ASGI middleware: it sees the response start without buffering the body, so it
costs nothing on large answers or streams.
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .metrics import Metrics

access = logging.getLogger("sleuth.server.access")
REQUEST_ID = "X-Request-ID"
_SAFE_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


class RequestLog:
    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = _request_id(scope)
        state = scope.setdefault("state", {})
        state["request_id"] = request_id
        started = time.monotonic()
        status = [500]

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
                message.setdefault("headers", [])
                message["headers"] = [
                    *message["headers"],
                    (REQUEST_ID.lower().encode(), request_id.encode()),
                ]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            self._log(scope, state, status[0], started)

    def _log(self, scope: Scope, state: dict[str, Any], status: int, started: float) -> None:
        route = getattr(scope.get("route"), "path", None) or "(unmatched)"
        self.metrics.responses.labels(route, str(status)).inc()
        line = {
            "ts": round(time.time(), 3),
            "request_id": state.get("request_id"),
            "method": scope.get("method"),
            "route": route,
            "status": status,
            "duration_ms": round((time.monotonic() - started) * 1000, 1),
            "org": state.get("org"),
            "cached": state.get("cached"),
            "cost_usd": state.get("cost_usd"),
        }
        access.info(json.dumps(line, separators=(",", ":")))


def _request_id(scope: Scope) -> str:
    """The caller's X-Request-ID when it is a plain token, else a new one."""
    for name, value in scope.get("headers", ()):
        if name == b"x-request-id":
            text = bytes(value).decode("latin-1")
            if _SAFE_ID.match(text):
                return text
    return uuid.uuid4().hex
