"""A saved run's knowledge graph over the API: JSON, SVG or Mermaid, for the caller's
organization only (another org's run id is a 404, like an unknown one)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query
from fastapi.responses import Response

from ...graph.model import KnowledgeGraph
from ...graph.render import render_graph
from ..auth import Member, ServerState
from .common import documented

router = APIRouter(tags=["research"])
RunId = Annotated[str, Path(max_length=64, description="A run's session id.")]
MEDIA = {
    "json": "application/json",
    "svg": "image/svg+xml",
    "mermaid": "text/plain; charset=utf-8",
}


@router.get(
    "/api/orgs/{org}/runs/{run_id}/graph",
    responses={
        200: {"content": {m: {} for m in MEDIA.values()}, "description": "The graph."},
        **documented(401, 404, 429, 500, 502, 503),
    },
    summary="A saved run's knowledge graph",
)
async def graph(
    org: str,
    run_id: RunId,
    caller: Member,
    state: ServerState,
    format: Annotated[
        Literal["json", "svg", "mermaid"], Query(description="The rendering.")
    ] = "json",
    method: Annotated[
        Literal["auto", "llm", "cooccurrence"],
        Query(description="auto: the model when the server has one, else co-occurrence."),
    ] = "auto",
) -> Response:
    """The key entities of the run's cited passages and their relations; every edge carries
    its citation numbers and supporting sentence (in SVG, a link to `#cite-n`)."""
    service = state.service

    async def draw(emit: object, tally: object) -> KnowledgeGraph:
        return await state.app.graph(
            run_id, method=method, org=caller.org, **service.values(caller, {})
        )

    drawn = await service.perform(caller, "graph", draw)
    body = render_graph(drawn, format)
    headers = {"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'"}
    return Response(body, media_type=MEDIA[format], headers=headers)
