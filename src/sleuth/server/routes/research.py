"""`POST /api/orgs/{org}/research`: a cited answer, exactly the result of `sleuth ask --json`
plus `cached`, saved as a session of the organization."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Header, Request
from fastapi.responses import Response

from ...app.caller import Caller
from ..auth import ServerState, scoped
from ..errors import ApiError
from ..idempotency import idempotent
from ..models import ResearchBody, ResearchResult
from ..state import State
from ..stream import research_stream, wants_events
from .common import POST_ERRORS, documented

router = APIRouter()
IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        pattern=r"^[!-~]{1,255}$",
        description="Retries with the same key get the first response (24 h): 1 to 255 "
        "visible ASCII characters, such as a UUID.",
    ),
]


@router.post(
    "/api/orgs/{org}/research",
    response_model=ResearchResult,
    responses=documented(*POST_ERRORS),
    summary="Answer a question from the web with checked citations",
    tags=["research"],
)
async def research(
    org: str,
    body: ResearchBody,
    request: Request,
    caller: Annotated[Caller, Depends(scoped("research"))],
    state: ServerState,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    """Search, read, keep passages, write, check every citation. Identical requests within 10
    minutes are answered from the cache (`cached: true`, not metered); identical requests in
    flight share one run. Quick runs stop after 45 s, deep runs after 150 s (504).

    With `Accept: text/event-stream` the run's events stream as server-sent events, ending
    with a `result` event (this response's JSON) or an `error` event."""
    if body.kb is not None:
        await _known_kb(state, caller.org, body.kb)
    values = {"query": body.query, **body.values()}
    if wants_events(request):
        return await research_stream(state, caller, values, no_cache=body.no_cache)

    async def run() -> Response:
        answer = await state.service.answer(caller, values, no_cache=body.no_cache)
        request.state.cached = answer.cached
        request.state.cost_usd = answer.cost_usd
        return Response(answer.body, media_type="application/json")

    payload = body.model_dump(mode="json", by_alias=True)
    return await idempotent(request, state, caller.org, payload, run)


async def _known_kb(state: State, org: str, name: str) -> None:
    """A knowledge base the organization does not have (or that is empty) is a 404, like any
    other name that is not the caller's."""
    if not any(b.name == name and b.documents for b in await state.app.knowledge.bases(org)):
        raise ApiError(404, "NOT_FOUND", f"no knowledge base {name!r} with documents")
