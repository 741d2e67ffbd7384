"""Who may reach which route, decided at the router, not in each route.

`create_app` includes every router with one of these guards as a router-level dependency, so a
route added to a router is protected like its neighbours without a line of its own:

    key       the API's caller: an API key, the password as a bearer token, or an open server
    research  the same, holding the `research` scope (the SSE dialect, its tickets, MCP)
    ticket    a one-use ticket from `POST /api/sse/ticket` (the live SSE URL only)
    ui        the web UI: an open server, or a login session when a password is set; never a
              keyed server without a password, where the UI could not tell whose runs to show
    operator  the operator's endpoints (/metrics): an open server, the password (a session or
              a bearer token), or the metrics token

The routes without a guard are listed in `PUBLIC`, here and nowhere else; `verify` refuses to
build an app with any other unguarded route, so forgetting a guard fails at start-up (and in
the route inventory test) rather than in production.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response

from ..app.caller import Caller
from .access import access_of, address, identify, presented
from .auth import principal
from .edge import UNSAFE
from .errors import ApiError, error_body
from .mcp.http import Gate
from .state import state_of

PUBLIC: Mapping[str, str] = MappingProxyType(
    {
        "/healthz": "liveness, for load balancers; says nothing about anyone's data",
        "/readyz": "readiness, for load balancers",
        "/login": "the login form and its post",
        "/logout": "ends the caller's own login session",
        "/static/{name}": "the UI's packaged CSS, script and icon",
        "/manifest.webmanifest": "the PWA manifest",
        "/sw.js": "the PWA service worker",
        "/api/docs": "the API's documentation page (no data)",
        "/api/docs/static": "its packaged assets",
        "/docs/oauth2-redirect": "its OAuth helper page (FastAPI's own)",
        "/api/openapi.json": "the API's description (no data)",
    }
)


class Refused(Exception):
    """A guard's refusal that is not an API error: the UI's pages and redirects."""

    def __init__(self, response: Response) -> None:
        super().__init__(response.status_code)
        self.response = response


async def research(request: Request) -> Caller:
    return await identify(request, "research")


async def ticket(request: Request) -> Caller:
    found = access_of(request).tickets.redeem(request.query_params.get("ticket", ""))
    if found is None:
        raise ApiError(401, "UNAUTHORIZED",
                       "a ticket from POST /api/sse/ticket is required (ticket=); each works "
                       "once, for a minute")  # fmt: skip
    request.state.org = found.org
    return await state_of(request).service.with_model(found)  # a ticket carries no model


async def ui(request: Request) -> None:
    state, access = state_of(request), access_of(request)
    if not (state.config.open_access or access.verifier is not None):
        from .ui.pages import render

        message = "This server requires API keys; set SLEUTH_ACCESS_PASSWORD to use the web UI."
        raise Refused(render(request, "message.html", status=403, heading="Sleuth",
                             message=message))  # fmt: skip
    if access.verifier is None or await access.signed_in(request):
        return
    if request.method == "GET" and "text/html" in request.headers.get("accept", ""):
        raise Refused(RedirectResponse(f"/login?next={quote(request.url.path)}", 303))
    raise Refused(JSONResponse(error_body("UNAUTHORIZED", "the access password is required"),
                               status_code=401))  # fmt: skip


async def operator(request: Request) -> None:
    state, access = state_of(request), access_of(request)
    if state.config.open_access and access.verifier is None:
        return
    secret, token = presented(request), state.config.metrics_token
    if secret and token and hmac.compare_digest(secret.encode(), token.encode()):
        return
    if await access.signed_in(request):
        return
    if secret and await access.password_ok(secret, address(request)):
        return
    raise ApiError(401, "UNAUTHORIZED", "the metrics token or the access password is required")


GUARDS: Mapping[Callable[..., Any], str] = MappingProxyType(
    {principal: "key", research: "research", ticket: "ticket", ui: "ui", operator: "operator"}
)


@dataclass(frozen=True, slots=True)
class Entry:
    """One route of the app: its path, a method, its guard, and its origin rule."""

    path: str
    method: str
    guard: str  # a GUARDS name, or "public"
    origin: str  # "same-origin" (a state change), "no-embedding" (a read), "by-method" (a mount)


def _guard_of(route: Any) -> str | None:
    if isinstance(getattr(route, "endpoint", None), Gate):
        return "research"
    for depends in getattr(route, "dependencies", None) or ():
        name = GUARDS.get(depends.dependency)
        if name is not None:
            return name
    return None


def _routes(app: FastAPI) -> Iterator[Any]:
    try:
        from fastapi.routing import iter_route_contexts
    except ImportError:  # an older FastAPI: included routers are flattened already
        yield from app.routes
        return
    yield from iter_route_contexts(app.routes)


def inventory(app: FastAPI) -> list[Entry]:
    """Every route and method, with its guard (or "public" for `PUBLIC`'s) and origin rule."""
    out = []
    for route in _routes(app):
        path = str(route.path)
        guard = _guard_of(route) or ("public" if path in PUBLIC else "NONE")
        for method in sorted(getattr(route, "methods", None) or {"*"}):
            origin = ("by-method" if method == "*"
                      else "same-origin" if method in UNSAFE else "no-embedding")  # fmt: skip
            out.append(Entry(path, method, guard, origin))
    return out


def verify(app: FastAPI) -> None:
    """Refuse an app with a route that has no guard and is not in `PUBLIC`."""
    bare = sorted({f"{e.method} {e.path}" for e in inventory(app) if e.guard == "NONE"})
    if bare:
        raise RuntimeError(f"routes without a guard (add one, or list them in PUBLIC): {bare}")


async def _on_refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refused)
    return exc.response


def install(app: FastAPI) -> None:
    app.add_exception_handler(Refused, _on_refused)
