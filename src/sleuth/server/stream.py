"""Server-sent events: the research request with `Accept: text/event-stream` streams Sleuth's
own run events, framed by `sse-starlette`.

Each engine event goes out as `event: <kind>` (`plan.ready`, `search.done`, `writer.delta`, ...)
with its JSON as `data` and its sequence number as `id`; the stream ends with a `result` event
carrying exactly the JSON the same request returns without streaming, or an `error` event with
the API's error body. A comment every 15 s keeps idle connections (proxies) open. A client that
disconnects stops following the run, which is cancelled unless another request shares it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.requests import Request
from starlette.responses import Response

from ..app.caller import Caller
from ..app.runs import Following
from ..events import Done, Event, Failed, Searched
from .errors import ApiError, error_body, from_sleuth
from .state import State

KEEPALIVE_S = 15
# nginx and similar proxies pass each event on at once.
UNBUFFERED = {"X-Accel-Buffering": "no"}


def wants_events(request: Request) -> bool:
    return "text/event-stream" in request.headers.get("accept", "").lower()


def sse(name: str, data: dict[str, Any], event_id: str | None = None) -> ServerSentEvent:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return ServerSentEvent(data=text, event=name, id=event_id)


def response(events: AsyncIterator[ServerSentEvent]) -> EventSourceResponse:
    return EventSourceResponse(events, ping=KEEPALIVE_S, headers=UNBUFFERED)


def failure(failed: Failed, queries: list[str]) -> ApiError:
    """A failed run as the API words it (a timed-out run lists what it searched)."""
    exc = failed.exception
    if exc is None:
        return ApiError(failed.http_status, failed.code, failed.error, retryable=failed.retryable)
    return from_sleuth(exc, queries)


def error_data(error: ApiError) -> dict[str, Any]:
    return {**error_body(error.code, error.message, error.retryable, **error.extra),
            "status": error.status}  # fmt: skip


async def sleuth_events(following: Following) -> AsyncIterator[ServerSentEvent]:
    """The run's events in Sleuth's own dialect; leaving the run when the client goes."""
    queries: list[str] = []
    try:
        async for event in following.events():
            if isinstance(event, Searched) and event.query not in queries:
                queries.append(event.query)
            yield _framed(event, queries)
            if isinstance(event, Done | Failed):
                return
        cut = ApiError(503, "RUN_CANCELLED", "the run was cancelled: the server is stopping")
        yield sse("error", error_data(cut))
    finally:
        following.leave()


def _framed(event: Event, queries: list[str]) -> ServerSentEvent:
    if isinstance(event, Done):
        return sse("result", event.result.to_json(), str(event.seq))
    if isinstance(event, Failed):
        return sse("error", error_data(failure(event, queries)), str(event.seq))
    return sse(event.kind, event.to_json(), str(event.seq))


async def research_stream(
    state: State, caller: Caller, values: Mapping[str, Any], *, no_cache: bool
) -> Response:
    """Follow the run of a research request (refusals before it starts are JSON errors)."""
    following = await state.service.submit(caller, values, no_cache=no_cache)
    await following.admitted()
    if following.run.cached_body is not None:
        following.leave()
        return cached_stream(following.run.cached_body)
    return response(sleuth_events(following))


def cached_stream(body: bytes) -> Response:
    """A cache hit's stream: its one `result` event, whose data is the stored JSON as it is
    (the same bytes a JSON request gets; nothing parsed, no keep-alive needed)."""
    frame = b"event: result\r\nid: 1\r\ndata: " + body + b"\r\n\r\n"
    headers = {"Cache-Control": "no-store", **UNBUFFERED}
    return Response(frame, media_type="text/event-stream", headers=headers)
