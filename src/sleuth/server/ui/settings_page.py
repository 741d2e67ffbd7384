"""The Settings page: the model endpoint, the thinking and task models, the search backend,
the API key (kept server-side, shown only as its last four characters), and where the
access password comes from."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ...errors import UsageError
from .context import ui_of
from .pages import render

router = APIRouter(include_in_schema=False)


@router.get("/settings", response_class=HTMLResponse)
async def settings(request: Request, saved: int = 0) -> HTMLResponse:
    ui = ui_of(request)
    return render(
        request,
        "settings.html",
        fields=ui.saved.shown(),
        saved=bool(saved),
        password=bool(ui.state.config.access_password),
        error=None,
    )


@router.post("/settings", response_model=None)
async def save_settings(request: Request) -> Response:
    ui = ui_of(request)
    form = await request.form()
    values = {k: str(v) for k, v in form.items() if isinstance(v, str)}
    clear = {str(v) for v in form.getlist("clear")}
    try:
        ui.saved.update(values, clear)
    except UsageError as exc:
        return render(
            request, "settings.html", status=400, fields=ui.saved.shown(), saved=False,
            password=bool(ui.state.config.access_password), error=str(exc),
        )  # fmt: skip
    return RedirectResponse("/settings?saved=1", status_code=303)
