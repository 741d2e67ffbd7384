"""The access password (`SLEUTH_ACCESS_PASSWORD`) in front of everything the server serves.

With a password set, a request passes only with the login cookie (set by `POST /login` after
the password was typed), or, for the API, with a credential the API checks itself (an API key,
the password as a bearer token, `password=` on `/api/sse/live`). Everything else — pages, the
shell's assets, the service worker, the API docs, metrics — is refused: 401 for the API and
assets, a redirect to `/login` for a page. `/healthz` and `/readyz` stay open for load
balancers; they say nothing about anyone's data.

Without a password nothing changes here. Either way, a form post from another site (an
`Origin` that is not this server) is refused, so a web page cannot start runs on a
loopback UI.
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

COOKIE = "sleuth_ui"
OPEN_PATHS = frozenset({"/login", "/healthz", "/readyz"})


def token(password: str) -> str:
    """The cookie's value: derived from the password, so changing it logs everyone out."""
    return hmac.new(password.encode(), b"sleuth-ui-login", hashlib.sha256).hexdigest()


def signed_in(request: Request, password: str | None) -> bool:
    if not password:
        return True
    return hmac.compare_digest(request.cookies.get(COOKIE, ""), token(password))


def _presents_secret(request: Request) -> bool:
    auth = request.headers.get("authorization", "")
    return bool(
        request.headers.get("x-api-key")
        or auth.lower().startswith("bearer ")
        or (request.url.path == "/api/sse/live" and request.query_params.get("password"))
    )


def _cross_site(request: Request) -> bool:
    """A browser's post from another origin (browsers always send `Origin` on a post)."""
    origin = request.headers.get("origin")
    if request.method in ("GET", "HEAD", "OPTIONS") or origin is None:
        return False
    return origin.rstrip("/") != f"{request.url.scheme}://{request.url.netloc}"


class PasswordGate:
    def __init__(self, app: ASGIApp, password: str | None) -> None:
        self.app = app
        self.password = password or None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        refusal = self.refusal(request)
        if refusal is None:
            await self.app(scope, receive, send)
        else:
            await refusal(scope, receive, send)

    def refusal(self, request: Request) -> Response | None:
        path = request.url.path
        api = path.startswith("/api/")
        if _cross_site(request) and not api:
            return _error(403, "FORBIDDEN", "cross-site form posts are refused")
        if not self.password or path in OPEN_PATHS or signed_in(request, self.password):
            return None
        if api and _presents_secret(request):
            return None  # the API checks the key or password itself
        if request.method == "GET" and not api and "text/html" in request.headers.get("accept", ""):
            return RedirectResponse(f"/login?next={quote(path)}", status_code=303)
        return _error(401, "UNAUTHORIZED", "the access password is required")


def _error(status: int, code: str, message: str) -> Response:
    body = {"success": False, "error": message, "code": code, "retryable": False}
    return JSONResponse(body, status_code=status)


def signed_in_with(password: str, expected: str) -> bool:
    return hmac.compare_digest(password.encode(), expected.encode())
