"""The web UI's guarded router, mounted at `/` by `create_app` behind the UI guard
(`guards.ui`): the pages, language and theme, and the research flow (`flow.py`). Its public
routes — login, logout, the assets and the PWA files — are in `shell.py`.

Who the UI acts for: a local person. It runs as the organization `local` and is open only when
the server is (loopback, no keys) or has an access password; a server that requires API keys
and has no password refuses the UI rather than show anyone's runs."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form
from fastapi.responses import RedirectResponse

from . import flow, graph_panel, history, i18n, kb_page, settings_page
from .pages import THEMES
from .shell import safe_next

router = APIRouter(include_in_schema=False)
YEAR_S = 365 * 24 * 3600


@router.post("/prefs")
async def prefs(
    lang: Annotated[str, Form()] = "",
    theme: Annotated[str, Form()] = "",
    next: Annotated[str, Form()] = "/",
) -> RedirectResponse:
    response = RedirectResponse(safe_next(next), status_code=303)
    if lang in i18n.LANGUAGES:
        response.set_cookie("lang", lang, max_age=YEAR_S, samesite="lax", httponly=True)
    if theme in THEMES:
        response.set_cookie("theme", theme, max_age=YEAR_S, samesite="lax", httponly=True)
    return response


router.include_router(history.router)  # before flow: /history/diff is not a run id
router.include_router(flow.router)
router.include_router(graph_panel.router)
router.include_router(kb_page.router)
router.include_router(settings_page.router)
