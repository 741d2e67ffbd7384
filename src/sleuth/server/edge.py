"""What every request must pass before any route sees it: the Host it names, and where it came
from. One ASGI middleware, so unmatched paths, the MCP mounts and routes added later are covered
as much as the ones written today.

**Host** must be a name this server answers to: loopback (`localhost`, `127.0.0.1`, `::1`), the
address it was told to bind when that is a single address, and the operator's `allowed_hosts`.
A page on `evil.example` whose name was re-pointed at 127.0.0.1 (DNS rebinding) sends
`Host: evil.example` and is refused, whatever its `Origin` says.

**Origin.** A request that changes something (POST, PUT, PATCH, DELETE) is refused when the
browser says it comes from another site (`Sec-Fetch-Site: cross-site` or `same-site` — another
port on this host is another origin) or names an `Origin` that is not this server's own. A GET
from another site is let through only as a top-level navigation (a link followed), never as an
embedded or scripted request (`<img>`, `<script>`, `fetch`), so no page can make a browser
fetch anything from here in the background. Clients that are not browsers send neither header
and are judged by their credentials alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from .errors import ApiError

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARDS = ("", "0.0.0.0", "::")
UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
FOREIGN = frozenset({"cross-site", "same-site"})
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def host_name(value: str) -> str:
    """`Example.com:8000` → `example.com`; `[::1]:8000` → `::1`."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    if value.count(":") == 1:
        value = value.split(":", 1)[0]
    return value.rstrip(".")


def allowed_hosts(bind: str, extra: Iterable[str]) -> frozenset[str]:
    names = {*LOOPBACK_NAMES, *(host_name(h) for h in extra if h.strip())}
    if host_name(bind) not in WILDCARDS:
        names.add(host_name(bind))
    return frozenset(names)


def _origin(scheme: str, netloc: str) -> tuple[str, str, int | None]:
    parts = urlsplit(f"{scheme}://{netloc}")
    try:
        port = parts.port
    except ValueError:
        port = -1  # never equal to a real port
    return parts.scheme, (parts.hostname or "").rstrip("."), port or DEFAULT_PORTS.get(scheme)


def foreign(scope: Scope, headers: Headers) -> str | None:
    """Why a browser's request from another site is refused here; None when it is not one."""
    site = headers.get("sec-fetch-site")
    if scope.get("method", "GET") not in UNSAFE:
        navigating = headers.get("sec-fetch-mode") == "navigate"
        if site in FOREIGN and not (navigating and headers.get("sec-fetch-dest") == "document"):
            return "another site may link to this server, not load from it"
        return None
    if site in FOREIGN:
        return "requests from another site are refused"
    origin = headers.get("origin")
    if origin is None:
        return None
    own = _origin(scope.get("scheme", "http"), headers.get("host", ""))
    parts = urlsplit(origin)
    theirs = _origin(parts.scheme, parts.netloc)
    if theirs == own:
        return None
    if origin != "null" and theirs[1] == own[1] and theirs[0] != own[0]:
        # This server's own name over another scheme: a TLS proxy it was not told about.
        return (f"the page is {parts.scheme} but this server sees {own[0]}: behind a TLS proxy, "
                "list its address in trusted_proxies (SLEUTH_TRUSTED_PROXIES)")  # fmt: skip
    return "requests from another site are refused"


class EdgeCheck:
    def __init__(self, app: ASGIApp, hosts: frozenset[str]) -> None:
        self.app, self.hosts = app, hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host")
        if host is not None and host_name(host) not in self.hosts:
            refusal = ApiError(
                400, "HOST_NOT_ALLOWED",
                f"this server does not answer to {host_name(host)!r}; its operator can add the "
                "name to allowed_hosts (SLEUTH_ALLOWED_HOSTS, sleuth serve --allowed-hosts)",
            )  # fmt: skip
        elif reason := foreign(scope, headers):
            refusal = ApiError(403, "CROSS_SITE", reason)
        else:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        await refusal.response()(scope, receive, send)
