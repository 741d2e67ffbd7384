"""The Settings page: the model provider (OpenAI-compatible, Anthropic, Gemini, Azure OpenAI)
and endpoint, the thinking and task models, the search backend and search language, the API
key (kept server-side, shown only as its last four characters), and where the access password
comes from; above the form, what a run started from the UI uses now — the operator's defaults
with the saved settings on top, keys masked — and where each came from."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ...app.assemble import llm_settings
from ...errors import SleuthError, UsageError
from .context import UiContext, ui_of
from .pages import render

router = APIRouter(include_in_schema=False)


@dataclass(frozen=True, slots=True)
class InUse:
    """One value a UI run uses now; `key` names a message when the value is one of ours."""

    name: str  # settings.<name> is its label
    value: str
    saved: bool  # set on this page (else the server's own setting or default)
    key: str = ""  # an i18n key to show instead of `value`


def in_use(ui: UiContext) -> list[InUse]:
    """What a run started from the UI would use, resolved as a run resolves it."""
    saved = ui.saved.values()
    try:
        prepared = ui.state.app.prepare("settings", **ui.values())
        settings, lang = prepared.settings, prepared.request.search_lang
        llm = llm_settings(settings)
    except SleuthError as exc:
        return [InUse("error", str(exc), False)]
    out = [
        InUse("search", settings.search, "search" in saved),
        InUse("search_lang", lang or "", "search_lang" in saved, "" if lang else "settings.any"),
    ]
    if not llm.configured:
        return [InUse("base_url", "", False, "settings.no_llm"), *out]
    endpoint = llm.endpoint or ""
    vendor = "" if endpoint else f"settings.vendor_{llm.wire_format}"  # the SDK's own URL
    key = f"…{llm.keys[0][-4:]}" if llm.keys else ""
    return [
        InUse("api_format", llm.wire_format, "api_format" in saved),
        InUse("base_url", endpoint, "base_url" in saved, vendor),
        InUse("model", llm.model_for("synth"), "model" in saved),
        InUse("plan_model", llm.model_for("plan"), "plan_model" in saved),
        InUse("api_key", key, "api_key" in saved, "" if key else "settings.no_key"),
        *out,
    ]  # fmt: skip


@router.get("/settings", response_class=HTMLResponse)
async def settings(request: Request, saved: int = 0) -> HTMLResponse:
    ui = ui_of(request)
    return render(
        request,
        "settings.html",
        fields=ui.saved.shown(),
        used=in_use(ui),
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
            request, "settings.html", status=400, fields=ui.saved.shown(), used=in_use(ui),
            saved=False, password=bool(ui.state.config.access_password), error=str(exc),
        )  # fmt: skip
    return RedirectResponse("/settings?saved=1", status_code=303)
