"""The web-app seed's SSE API: `POST /api/sse` (a JSON body) and `GET /api/sse/live` (the same
fields as query parameters, so a browser can watch a run from a URL). Events: `infor` first,
then `progress`, `message`, `reasoning`, and `error`; see `webapp/events.py` for the mapping.

Who may call: `POST /api/sse` and `POST /api/sse/ticket` take an API key with the research
scope or `SLEUTH_ACCESS_PASSWORD` as a bearer token (`guards.research`); the live URL takes a
one-use ticket from the latter (`ticket=`, `guards.ticket`), never a key or password. A refused
caller gets a 401 JSON error; anything wrong after that (a bad field, an unknown provider, a
full server, a failed run) is one `error` event.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import replace
from importlib.metadata import version
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Request
from sse_starlette import EventSourceResponse, ServerSentEvent

from ...app.assemble import llm_settings
from ...app.caller import Caller
from ...app.runs import Following
from ...errors import SleuthError, UsageError
from ...events import Done, Failed
from .. import guards
from ..access import access_of
from ..auth import ServerState
from ..state import State
from ..stream import response, sse
from ..tickets import TTL_S as TICKET_TTL_S
from ..webapp.events import WebAppSteps
from ..webapp.request import Mapped, WebAppConfig, map_request, parse
from .common import documented

router = APIRouter()  # behind guards.research
live = APIRouter()  # behind guards.ticket
NAME = "sleuth"
# How this dialect names the settings an error may mention.
FIELDS = {
    "question": "query",
    "search": "searchProvider",
    "model": "taskModel",
    "plan_model": "thinkingModel",
    "critic_model": "thinkingModel",
    "max_results": "maxResult",
    "images": "enableCitationImage",
}
STREAM: dict[int | str, dict[str, Any]] = {
    200: {"description": "Server-sent events", "content": {"text/event-stream": {}}}
}
Researcher = Annotated[Caller, Depends(guards.research)]
Ticketed = Annotated[Caller, Depends(guards.ticket)]
BODY_SCHEMA = {"content": {"application/json": {"schema": WebAppConfig.model_json_schema()}}}


@router.post(
    "/api/sse",
    summary="Deep research as server-sent events (the research web-app's SSE API)",
    tags=["sse"],
    responses={**STREAM, **documented(400, 401, 403)},  # 400: a body that is not JSON
    openapi_extra={"requestBody": BODY_SCHEMA},
)
async def sse_post(
    caller: Researcher, state: ServerState, body: Annotated[dict[str, Any], Body()]
) -> EventSourceResponse:
    """Fields: query, provider, thinkingModel, taskModel, searchProvider, language, maxResult,
    enableCitationImage (images of the cited pages beside their sentences; default on),
    enableReferences, promptOverrides
    (each replaces the instructions of its Sleuth stage; the source framing, the citation rules
    and the citation check stay; keys not applied are listed in `infor` and the final summary as
    `warnings`)."""
    return response(webapp_events(state, caller, body))


@router.post(
    "/api/sse/ticket",
    summary="A one-use ticket for the live URL (valid for a minute)",
    tags=["sse"],
    responses=documented(401, 403, 429),
)
async def sse_ticket(request: Request, caller: Researcher) -> dict[str, Any]:
    """For clients that cannot send headers on their stream (a browser's EventSource): send the
    credential here, then open `GET /api/sse/live?ticket=...&query=...`."""
    return {"ticket": access_of(request).tickets.issue(caller), "expiresIn": TICKET_TTL_S}


@live.get(
    "/api/sse/live",
    summary="Watch deep research from a URL: the same fields as query parameters",
    tags=["sse"],
    responses={**STREAM, **documented(401, 403)},
)
async def sse_live(request: Request, caller: Ticketed, state: ServerState) -> EventSourceResponse:
    """The `POST /api/sse` fields as query parameters, plus `ticket` (from
    `POST /api/sse/ticket`; keys and passwords are never taken from a URL); promptOverrides as
    a JSON object."""
    params = dict(request.query_params)
    params.pop("ticket", None)
    return response(webapp_events(state, caller, params))


async def webapp_events(
    state: State, who: Caller, data: Mapping[str, Any]
) -> AsyncIterator[ServerSentEvent]:
    try:
        mapped = map_request(parse(data), state.app.settings.env)
    except SleuthError as exc:
        yield _infor()
        yield sse("error", {"message": exc.worded(_field)})
        return
    yield _infor(mapped)
    try:
        following = await state.service.submit(who, _values(state, who, mapped))
        await following.admitted()
    except SleuthError as exc:
        yield sse("error", {"message": exc.worded(_field)})
        return
    async for item in _followed(
        following, WebAppSteps(mapped.config.enableReferences, mapped.warnings)
    ):
        yield item


async def _followed(following: Following, steps: WebAppSteps) -> AsyncIterator[ServerSentEvent]:
    try:
        for name, data in steps.opening():
            yield sse(name, data)
        async for event in following.events():
            if isinstance(event, Failed) and event.exception is not None:
                event = replace(event, error=event.exception.worded(_field))
            for name, data in steps.translate(event):
                yield sse(name, data)
            if isinstance(event, Done | Failed):
                return
        yield sse("error", {"message": "the run was cancelled: the server is stopping"})
    finally:
        following.leave()


def _values(state: State, who: Caller, mapped: Mapped) -> dict[str, Any]:
    """The run's values: the request's, with the operator's model endpoint left out (None)
    when the request names its own provider."""
    values = {**dict.fromkeys(mapped.dropped), "query": mapped.config.query, **mapped.values}
    prepared = state.service.prepare(who, values)
    if mapped.config.provider and not llm_settings(prepared.settings).configured:
        raise UsageError(
            f"provider {mapped.config.provider!r}: the server has no model endpoint configured "
            "(sleuth serve --base-url, or SLEUTH_BASE_URL)"
        )
    return values


def _infor(mapped: Mapped | None = None) -> ServerSentEvent:
    data: dict[str, Any] = {"name": NAME, "version": version("sleuth")}
    if mapped is not None and mapped.ignored_prompts:
        data["ignoredPromptOverrides"] = list(mapped.ignored_prompts)
    if mapped is not None and mapped.unknown_prompts:
        data["unknownPromptOverrides"] = list(mapped.unknown_prompts)
    if mapped is not None and mapped.warnings:
        data["warnings"] = mapped.warnings
    return sse("infor", data)


def _field(setting: str) -> str:
    return FIELDS.get(setting, setting)
