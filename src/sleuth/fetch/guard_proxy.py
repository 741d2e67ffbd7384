"""A loopback forward proxy that applies the SSRF guard to every request a browser makes.

Playwright's `route()` sees only the first request of a redirect chain: the browser follows
3xx hops on its own. Pointing the browser at this proxy (with loopback *not* bypassed) means
every hop, subresource and tunnel is a fresh request we can refuse. Each client connection
carries exactly one request, so nothing can ride an already-approved connection to another host.
After connecting we check the address actually reached, which defeats DNS rebinding between
the guard's lookup and the connect.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import ipaddress
from collections import deque
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from ..errors import FetchError
from .guard import METADATA_ADDRESSES, GuardPolicy, check_url, is_blocked_address

# Marks the proxy's own refusals so the browser side can tell them from a site's 403.
GUARD_HEADER = "X-Sleuth-Guard"
_MAX_HEAD = 64 * 1024
_HEAD_TIMEOUT_S = 10.0
_CONNECT_TIMEOUT_S = 10.0
_CHUNK = 64 * 1024
_HOP_HEADERS = frozenset(
    {b"proxy-connection", b"proxy-authorization", b"connection", b"keep-alive"}
)


class _Refused(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


@dataclass(frozen=True, slots=True)
class _Request:
    method: str
    target: str
    version: str
    headers: tuple[tuple[bytes, bytes], ...]

    def header(self, name: bytes) -> bytes | None:
        return next((v for k, v in self.headers if k.lower() == name), None)


class GuardProxy:
    """`await start()` returns the proxy URL; `upstream` chains to a configured HTTP proxy."""

    def __init__(self, policy: GuardPolicy, upstream: str | None = None) -> None:
        self._policy = policy
        self._upstream = _host_port(upstream) if upstream else None
        self._upstream_auth = _basic_auth(upstream) if upstream else None
        self._server: asyncio.Server | None = None
        # Targets refused, newest last, for diagnostics.
        self.refused: deque[str] = deque(maxlen=100)

    async def start(self) -> str:
        if self._server is None:
            self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def aclose(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await asyncio.wait_for(_read_head(reader), _HEAD_TIMEOUT_S)
            await self._handle(request, reader, writer)
        except _Refused as exc:
            await _reply(writer, exc.status, str(exc))
        except (OSError, TimeoutError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            writer.close()

    async def _handle(
        self, request: _Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        if request.method == "CONNECT":
            host, port = _host_port(f"//{request.target}")
            await self._guard(f"https://{request.target}/")
            remote_r, remote_w = await self._open(host, port)
            if self._upstream:
                remote_w.write(_render_head(request, request.target, self._upstream_auth))
            else:
                writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            await _pipe_both(reader, writer, remote_r, remote_w)
            return
        if not request.target.lower().startswith("http://"):
            raise _Refused(400, "absolute http:// URL required")
        await self._guard(request.target)
        parts = urlsplit(request.target)
        host, port = parts.hostname or "", parts.port or 80
        remote_r, remote_w = await self._open(host, port)
        path = request.target if self._upstream else _origin_form(request.target)
        head = _render_head(request, path, self._upstream_auth)
        remote_w.write(head + await _read_body(request, reader))
        await remote_w.drain()
        # Only the response flows from here on: a second request on this client connection
        # would reach the remote without passing the guard.
        await _copy(remote_r, writer)
        remote_w.close()

    async def _guard(self, url: str) -> None:
        policy = GuardPolicy(self._policy.allow_private, proxied=self._upstream is not None)
        try:
            await check_url(url, policy)
        except FetchError as exc:
            self.refused.append(url)
            raise _Refused(403, f"blocked: {exc.reason}") from exc

    async def _open(
        self, host: str, port: int
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        target = self._upstream or (host, port)
        try:
            remote_r, remote_w = await asyncio.wait_for(
                asyncio.open_connection(*target), _CONNECT_TIMEOUT_S
            )
        except (OSError, TimeoutError) as exc:
            raise _Refused(502, f"cannot connect: {exc}") from exc
        if self._upstream is None:
            self._check_peer(remote_w, host)
        return remote_r, remote_w

    def _check_peer(self, remote_w: asyncio.StreamWriter, host: str) -> None:
        peer = ipaddress.ip_address(str(remote_w.get_extra_info("peername")[0]).split("%")[0])
        bad = peer in METADATA_ADDRESSES or (
            not self._policy.allow_private and is_blocked_address(peer)
        )
        if bad:
            remote_w.close()
            self.refused.append(host)
            raise _Refused(403, f"blocked: {host} resolved to {peer}")


async def _read_head(reader: asyncio.StreamReader) -> _Request:
    raw = await reader.readuntil(b"\r\n\r\n")
    if len(raw) > _MAX_HEAD:
        raise ValueError("request head too large")
    lines = raw[:-4].split(b"\r\n")
    method, target, version = lines[0].decode("latin-1").split(" ", 2)
    headers = tuple(
        (name.strip(), value.strip())
        for name, _, value in (line.partition(b":") for line in lines[1:])
    )
    return _Request(method.upper(), target, version, headers)


async def _read_body(request: _Request, reader: asyncio.StreamReader) -> bytes:
    if request.header(b"transfer-encoding"):
        raise _Refused(411, "chunked request bodies are not supported")
    length = int(request.header(b"content-length") or b"0")
    return await reader.readexactly(length) if length else b""


def _render_head(request: _Request, target: str, auth: bytes | None) -> bytes:
    lines = [f"{request.method} {target} {request.version}".encode("latin-1")]
    lines += [k + b": " + v for k, v in request.headers if k.lower() not in _HOP_HEADERS]
    if auth:
        lines.append(b"Proxy-Authorization: " + auth)
    if request.method != "CONNECT":
        lines.append(b"Connection: close")
    return b"\r\n".join(lines) + b"\r\n\r\n"


def _basic_auth(url: str) -> bytes | None:
    parts = urlsplit(url)
    if parts.username is None:
        return None
    pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
    return b"Basic " + base64.b64encode(pair.encode("utf-8"))


def _origin_form(url: str) -> str:
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def _host_port(url: str) -> tuple[str, int]:
    parts = urlsplit(url if "//" in url else f"//{url}")
    if not parts.hostname:
        raise ValueError(f"no host in {url!r}")
    return parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)


async def _reply(writer: asyncio.StreamWriter, status: int, reason: str) -> None:
    body = reason.encode("utf-8", "replace")
    head = (
        f"HTTP/1.1 {status} Refused\r\n{GUARD_HEADER}: refused\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    with contextlib.suppress(OSError):
        writer.write(head.encode("latin-1") + body)
        await writer.drain()


async def _copy(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    with contextlib.suppress(OSError):
        while chunk := await source.read(_CHUNK):
            sink.write(chunk)
            await sink.drain()


async def _pipe_both(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    remote_r: asyncio.StreamReader,
    remote_w: asyncio.StreamWriter,
) -> None:
    await writer.drain()
    # A tunnel ends when either side closes; waiting for both could hang on an idle client.
    tasks = [
        asyncio.ensure_future(_copy(reader, remote_w)),
        asyncio.ensure_future(_copy(remote_r, writer)),
    ]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        remote_w.close()
