"""The UI's public routes (each listed in `guards.PUBLIC`): the packaged assets, the PWA
manifest and service worker, and logging in and out with the access password.

A login opens a server-side session (`logins.py`): the cookie is a random token, HttpOnly,
SameSite=Strict, `Secure` whenever the page was served over HTTPS (directly or behind a
trusted proxy), and it ends at `POST /logout`, after 12 hours, or when the password changes.
Wrong passwords are throttled per client address (`throttle.py`)."""

from __future__ import annotations

import asyncio
from importlib import resources
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ..access import COOKIE, access_of, address
from ..errors import ApiError
from ..logins import LIFETIME_S
from . import i18n
from .pages import environment, security_headers

router = APIRouter(include_in_schema=False)
STATIC_TYPES = {
    "app.css": "text/css; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "icon.svg": "image/svg+xml",
    "pages.css": "text/css; charset=utf-8",
    "pages.js": "text/javascript; charset=utf-8",
}


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


@router.get("/login", response_class=HTMLResponse)
async def login_page(request: Request, next: str = "/") -> HTMLResponse:
    return _login(request, safe_next(next))


@router.post("/login", response_model=None)
async def login(
    request: Request,
    password: Annotated[str, Form(max_length=1024)] = "",
    next: Annotated[str, Form()] = "/",
) -> Response:
    access, target = access_of(request), safe_next(next)
    if access.verifier is None:
        return RedirectResponse(target, status_code=303)
    try:
        right = await access.password_ok(password, address(request))
    except ApiError as exc:  # throttled: wait before trying again
        page = _login(request, target, problem="login.wait", status=429)
        page.headers["Retry-After"] = str(max(1, round(exc.retry_after or 1)))
        return page
    if not right:
        return _login(request, target, problem="login.wrong", status=401)
    token = await asyncio.to_thread(access.logins.open, access.verifier.fingerprint)
    response = RedirectResponse(target, status_code=303)
    response.set_cookie(COOKIE, token, max_age=LIFETIME_S, httponly=True, samesite="strict",
                        secure=request.url.scheme == "https")  # fmt: skip
    return response


@router.post("/logout", response_model=None)
async def logout(request: Request) -> Response:
    token = request.cookies.get(COOKIE)
    if token:
        await asyncio.to_thread(access_of(request).logins.close, token)
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(COOKIE, httponly=True, samesite="strict",
                           secure=request.url.scheme == "https")  # fmt: skip
    return response


def _login(request: Request, target: str, problem: str = "", status: int = 200) -> HTMLResponse:
    lang = i18n.pick(request.cookies.get("lang"), request.headers.get("accept-language", ""))
    html = (
        environment()
        .get_template("login.html")
        .render(t=i18n.translator(lang), lang=lang, next=target, problem=problem)
    )
    return HTMLResponse(html, status_code=status, headers=security_headers())
