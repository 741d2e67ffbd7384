"""The knowledge graph on the answer page: `/runs/{id}/graph` is the panel's content (the SVG
drawn in Python, inline, each edge a link to its source in the page's list), loaded by the
page's script after the answer shows, since a model may take a few seconds to draw it;
`/runs/{id}/graph.{svg,json,mmd}` are the downloads."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from ...errors import SleuthError
from ...graph.mermaid import render_mermaid
from ...graph.model import KnowledgeGraph
from ...graph.render import render_graph
from ...graph.svg import render_svg
from .context import UiContext, ui_of
from .flow import _error
from .pages import environment, language, security_headers

router = APIRouter(include_in_schema=False)
DOWNLOADS = {
    "svg": "image/svg+xml",
    "json": "application/json; charset=utf-8",
    "mmd": "text/plain; charset=utf-8",
}


async def _graph(ui: UiContext, session_id: str) -> KnowledgeGraph:
    """The run's graph, drawn as admitted work of the UI's caller (a model may draw it)."""
    record = ui.record(session_id)

    async def draw(emit: object, tally: object) -> KnowledgeGraph:
        return await ui.state.app.graph(record.id, **ui.values())

    return await ui.state.service.perform(ui.caller, "graph", draw)


@router.get("/runs/{session_id}/graph", response_class=HTMLResponse)
async def panel(request: Request, session_id: str) -> HTMLResponse:
    ui = ui_of(request)
    try:
        graph = await _graph(ui, session_id)
    except SleuthError as exc:
        return _error(request, exc)
    from .i18n import translator

    svg = render_svg(graph, anchor="src-") if not graph.empty else ""
    html = (
        environment()
        .get_template("graph_fragment.html")
        .render(t=translator(language(request)), graph=graph, svg=svg, session_id=graph.session_id)
    )
    return HTMLResponse(html, headers=security_headers())


@router.get("/runs/{session_id}/graph.{fmt}", response_model=None)
async def download(request: Request, session_id: str, fmt: str) -> Response:
    ui = ui_of(request)
    if fmt not in DOWNLOADS:
        return Response("not found", status_code=404, media_type="text/plain")
    try:
        graph = await _graph(ui, session_id)
    except SleuthError as exc:
        return _error(request, exc)
    body = render_mermaid(graph) if fmt == "mmd" else render_graph(graph, fmt, links="source")
    name = f"sleuth-graph-{graph.session_id}.{fmt}"
    headers = {**security_headers(), "Content-Disposition": f'attachment; filename="{name}"'}
    return Response(body, media_type=DOWNLOADS[fmt], headers=headers)
