"""Who may use the SSE API and MCP over HTTP: an API key (`X-API-Key` or `Authorization:
Bearer`) with the research scope, or the server's access password (`SLEUTH_ACCESS_PASSWORD`) as
a bearer token, as the web-app seed's clients send it. With neither keys nor a password the
server is open (loopback only, see `sleuth serve`); with a password set, it is needed even then.

A password caller acts for the organization `local`, like an open server's callers.
"""

from __future__ import annotations

import hmac

from starlette.requests import HTTPConnection

from ..app.caller import ALL_SCOPES
from ..app.caller import Caller as Principal
from .config import OPEN_ORG
from .errors import ApiError
from .state import State

SCOPE = "research"


def presented(conn: HTTPConnection) -> str | None:
    """The secret a request carries: `X-API-Key`, or an `Authorization: Bearer` token."""
    key = conn.headers.get("x-api-key", "").strip()
    if key:
        return key
    scheme, _, token = conn.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


async def caller(state: State, secret: str | None) -> Principal:
    """The principal for `secret`, or the 401/403 ApiError that refuses it."""
    password = state.config.access_password
    if secret and password and hmac.compare_digest(secret.encode(), password.encode()):
        return Principal(OPEN_ORG, ALL_SCOPES, "password", None, "password")
    if not secret:
        if state.config.open_access and not password:
            return Principal(OPEN_ORG, ALL_SCOPES, "open", None, "open")
        what = "an API key or the access password" if password else "an API key"
        raise ApiError(401, "UNAUTHORIZED", f"{what} is required (Authorization: Bearer ...)")
    found = await state.service.caller_for(secret)
    if found is None:
        raise ApiError(401, "UNAUTHORIZED", "the API key or password is not valid")
    if not found.may(SCOPE):
        raise ApiError(403, "SCOPE_REQUIRED", f"this key lacks the {SCOPE!r} scope")
    return found
