"""Who is calling, as FastAPI dependencies: the caller (`access.identify`: an API key, the
access password, or nobody on an open server), a member of the path's organization, a holder of
a scope. The API's routers take `principal` as their guard (`guards.py`); routes declare what
more they need.

An organization path that is not the caller's answers 404, exactly like a path that does not
exist, so a key learns nothing about other organizations; that check comes before the scope
check for the same reason.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from ..app.caller import Caller as Principal
from .access import identify
from .errors import ApiError
from .state import State, server_state

api_key_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="An API key.")
bearer = HTTPBearer(auto_error=False, description="The same API key as a bearer token.")


async def principal(
    request: Request,
    api_key: Annotated[str | None, Depends(api_key_header)],
    token: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Principal:
    """The caller (`access.identify`); the two header dependencies document the schemes."""
    return await identify(request)


Caller = Annotated[Principal, Depends(principal)]


async def member(org: str, caller: Caller) -> Principal:
    """The caller, when the path's organization is its own; else the 404 of an unknown path."""
    if org != caller.org:
        raise ApiError(404, "NOT_FOUND", "no such organization")
    return caller


def scoped(scope: str) -> Callable[..., Awaitable[Principal]]:
    """A dependency: the caller, a member of the path's organization, holding `scope`."""

    async def check(caller: Annotated[Principal, Depends(member)]) -> Principal:
        if scope not in caller.scopes:
            raise ApiError(403, "SCOPE_REQUIRED", f"this key lacks the {scope!r} scope")
        return caller

    return check


Member = Annotated[Principal, Depends(member)]
ServerState = Annotated[State, Depends(server_state)]
