"""Who is calling, decided once for every API route and the MCP mounts: an API key
(`X-API-Key` or `Authorization: Bearer`), the access password (`SLEUTH_ACCESS_PASSWORD`) as a
bearer token, or nobody on an open server (loopback, no keys, no password). The UI's login
session is checked here too (`signed_in`), for the routes the UI guard and the metrics guard
protect; which route needs which is decided at the router (`guards.py`).

A password caller acts for the organization `local`, like an open server's callers. Password
tries are slow (a scrypt verifier, `password.py`) and throttled per client address
(`throttle.py`); a password that passed once is remembered for this process under a keyed hash,
so a client sending it on every request does not pay scrypt each time.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
from dataclasses import dataclass, field

from starlette.requests import HTTPConnection

from ..app.caller import ALL_SCOPES, Caller
from ..app.metering import KEY_PREFIX
from .config import OPEN_ORG
from .errors import ApiError
from .logins import Logins
from .password import Verifier
from .state import State
from .throttle import Throttle
from .tickets import Tickets

COOKIE = "sleuth_ui"
OPEN = Caller(OPEN_ORG, ALL_SCOPES, "open", None, "open")
PASSWORD = Caller(OPEN_ORG, ALL_SCOPES, "password", None, "password")
MAX_REMEMBERED = 16


@dataclass(slots=True)
class Access:
    """What the edge keeps per server: the password's verifier, login sessions, the login
    throttle and the SSE tickets."""

    verifier: Verifier | None
    logins: Logins
    throttle: Throttle
    tickets: Tickets
    _passed: set[bytes] = field(default_factory=set)
    _key: bytes = field(default_factory=lambda: secrets.token_bytes(32))

    async def password_ok(self, candidate: str, address: str) -> bool:
        """Whether `candidate` is the password; a 429 while `address` must wait."""
        if self.verifier is None:
            return False
        wait = self.throttle.wait(address)
        if wait is not None:
            raise ApiError(429, "TOO_MANY_ATTEMPTS",
                           "too many wrong passwords from this address; wait and try again",
                           retry_after=wait)  # fmt: skip
        mark = hmac.new(self._key, candidate.encode(), hashlib.sha256).digest()
        ok = mark in self._passed or await asyncio.to_thread(self.verifier.matches, candidate)
        if not ok:
            self.throttle.failed(address)
            return False
        self.throttle.succeeded(address)
        if len(self._passed) < MAX_REMEMBERED:
            self._passed.add(mark)
        return True

    async def signed_in(self, conn: HTTPConnection) -> bool:
        """The request carries the cookie of a login session still open for this password."""
        token = conn.cookies.get(COOKIE, "")
        if self.verifier is None or not token:
            return False
        fingerprint = self.verifier.fingerprint
        return await asyncio.to_thread(self.logins.valid, token, fingerprint)


def access_of(conn: HTTPConnection) -> Access:
    found: Access = conn.app.state.access
    return found


def address(conn: HTTPConnection) -> str:
    """The client's address (the real one behind a trusted proxy, see `trusted_proxies`)."""
    return conn.client.host if conn.client else "-"


def presented(conn: HTTPConnection) -> str | None:
    """The secret a request carries: `X-API-Key`, or an `Authorization: Bearer` token."""
    key = conn.headers.get("x-api-key", "").strip()
    if key:
        return key
    scheme, _, token = conn.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


async def identify(conn: HTTPConnection, scope: str | None = None) -> Caller:
    """The caller, or the 401/403/429 ApiError that refuses it; notes its org for the log."""
    state: State = conn.app.state.sleuth
    access = access_of(conn)
    secret = presented(conn)
    if not secret:
        if state.config.open_access and access.verifier is None:
            conn.state.org = OPEN.org
            return OPEN
        what = "an API key or the access password" if access.verifier else "an API key"
        raise ApiError(401, "UNAUTHORIZED", f"{what} is required (Authorization: Bearer ...)")
    found = await _holder(state, access, secret, address(conn))
    if scope is not None and scope not in found.scopes:
        raise ApiError(403, "SCOPE_REQUIRED", f"this key lacks the {scope!r} scope")
    conn.state.org = found.org
    return found


async def _holder(state: State, access: Access, secret: str, client: str) -> Caller:
    """Whose secret this is: an API key's organization, or the password's `local`."""
    if secret.startswith(KEY_PREFIX) or access.verifier is None:
        found = await state.service.caller_for(secret)
        if found is not None:
            return found
    if await access.password_ok(secret, client):
        return PASSWORD
    raise ApiError(401, "UNAUTHORIZED", "the API key or password is not valid")
