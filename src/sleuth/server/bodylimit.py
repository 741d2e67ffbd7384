"""Refuse request bodies over the limit (1 MB) with the API's 413 error shape: at once when
Content-Length says so, or as soon as a chunked body passes it while being read."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import ApiError


def too_large(limit: int) -> ApiError:
    return ApiError(413, "PAYLOAD_TOO_LARGE", _message(limit))


def _message(limit: int) -> str:
    return f"the request body is larger than {limit:,} bytes"


class BodyLimit:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if _declared(scope) > self.max_bytes:
            await too_large(self.max_bytes).response()(scope, receive, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.max_bytes:
                # An HTTPException passes through FastAPI's body parsing to the 413 handler.
                raise HTTPException(413, _message(self.max_bytes))
            return message

        await self.app(scope, counted, send)


def _declared(scope: Scope) -> int:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return 0
    return 0
