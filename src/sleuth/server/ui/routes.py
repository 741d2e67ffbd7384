"""The web UI's router, mounted at `/` by `create_app`: the shell (pages, language and theme,
login, the assets, the PWA manifest and service worker) and the research flow (`flow.py`).

Who the UI acts for: a local person. It runs as the organization `local` and is open only when
the server is (loopback, no keys) or has an access password; a server that requires API keys
and has no password refuses the UI rather than show anyone's runs."""

from __future__ import annotations

from importlib import resources
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ..state import state_of
from . import flow, gate, graph_panel, history, i18n, kb_page, settings_page
from .pages import THEMES, security_headers

router = APIRouter(include_in_schema=False)
STATIC_TYPES = {
    "app.css": "text/css; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "icon.svg": "image/svg+xml",
    "pages.css": "text/css; charset=utf-8",
    "pages.js": "text/javascript; charset=utf-8",
}
YEAR_S = 365 * 24 * 3600


def safe_next(target: str) -> str:
    """A local path to go back to (never another site: `//evil.example` is refused)."""
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return "/"
    return target


def _asset(name: str) -> bytes:
    return resources.files(__package__).joinpath("static", name).read_bytes()


@router.get("/static/{name}")
async def static(name: str) -> Response:
    if name not in STATIC_TYPES:
        return Response("not found", status_code=404, media_type="text/plain")
    headers = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}
    return Response(_asset(name), media_type=STATIC_TYPES[name], headers=headers)


@router.get("/manifest.webmanifest")
async def manifest() -> Response:
    return Response(_asset("manifest.webmanifest"), media_type="application/manifest+json")


@router.get("/sw.js")
async def service_worker() -> Response:
    headers = {"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"}
    return Response(_asset("sw.js"), media_type="text/javascript", headers=headers)


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


@router.get("/login", response_class=HTMLResponse)
async def login_page(request: Request, next: str = "/") -> HTMLResponse:
    return _login(request, safe_next(next), failed=False)


@router.post("/login", response_model=None)
async def login(
    request: Request,
    password: Annotated[str, Form(max_length=1024)] = "",
    next: Annotated[str, Form()] = "/",
) -> Response:
    expected = state_of(request).config.access_password
    if not expected:
        return RedirectResponse(safe_next(next), status_code=303)
    if not gate.signed_in_with(password, expected):
        return _login(request, safe_next(next), failed=True, status=401)
    response = RedirectResponse(safe_next(next), status_code=303)
    response.set_cookie(
        gate.COOKIE, gate.token(expected), httponly=True, samesite="strict", max_age=30 * 86400
    )
    return response


def _login(request: Request, next_path: str, *, failed: bool, status: int = 200) -> HTMLResponse:
    lang = i18n.pick(request.cookies.get("lang"), request.headers.get("accept-language", ""))
    from .pages import environment

    html = (
        environment()
        .get_template("login.html")
        .render(t=i18n.translator(lang), lang=lang, next=next_path, failed=failed)
    )
    return HTMLResponse(html, status_code=status, headers=security_headers())


router.include_router(history.router)  # before flow: /history/diff is not a run id
router.include_router(flow.router)
router.include_router(graph_panel.router)
router.include_router(kb_page.router)
router.include_router(settings_page.router)
