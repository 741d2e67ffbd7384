"""uvicorn's httptools protocol with the bounds a server facing a network needs, which uvicorn
does not have (a slow-headers attack held ~20,000 connections open until descriptors ran out):

- a request's headers must be complete `HEAD_TIMEOUT_S` after its first byte — else 408 and
  the connection closes;
- a new connection that sends nothing is closed, without an answer, after the keep-alive
  timeout (what uvicorn already does to an idle connection after a response, and what nginx
  does): a client's pool may open a connection and use it seconds later, and an unasked-for
  408 waiting in it would be read as the answer to that later request;
- at most `MAX_HEADER_BYTES` of request line and headers, and `MAX_HEADERS` header fields —
  else 431 and the connection closes. Only bytes read while a head is incomplete count: the
  tail of the previous request's body, read together with the next request's first bytes, is
  not part of that head;
- at most `per_client` open connections from one client address on one listening socket —
  the next is answered 503 and closed. Loopback and the addresses of trusted proxies
  (`trusted_proxies`) are exempt: every client behind a proxy shares its address, and a
  process on this machine needs no slow-headers trick to hurt it.

`configure` sets the last two for this process (`sleuth serve` calls it in each worker).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any, ClassVar

from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from .config import ServerConfig, is_loopback

HEAD_TIMEOUT_S = 10.0
MAX_HEADER_BYTES = 64 * 1024
MAX_HEADERS = 100
LINGER_S = 1.0  # a refused connection is drained this long before it closes


class _Refusal(Exception):
    """Raised from a parser callback to stop parsing a request that is refused."""


class GuardedHttp(HttpToolsProtocol):
    head_timeout_s: ClassVar[float] = HEAD_TIMEOUT_S
    idle_timeout_s: ClassVar[float | None] = None  # None: uvicorn's keep-alive timeout
    max_header_bytes: ClassVar[int] = MAX_HEADER_BYTES
    max_headers: ClassVar[int] = MAX_HEADERS
    per_client: ClassVar[int] = 256
    exempt: ClassVar[frozenset[str]] = frozenset()
    loopback_exempt: ClassVar[bool] = True
    _open: ClassVar[Counter[tuple[Any, str]]] = Counter()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._timer: asyncio.TimerHandle | None = None  # the head timer, or the idle one
        self._in_head = False  # a request begun whose headers are not complete
        self._whole_chunk = False  # the chunk being parsed is counted whole as head bytes
        self._head_bytes = 0
        self._fields = 0
        self._counted: tuple[Any, str] | None = None
        self._refused: tuple[int, str] | None = None
        self._linger: asyncio.TimerHandle | None = None

    @classmethod
    def configure(cls, config: ServerConfig) -> None:
        cls.per_client = config.client_connections
        cls.exempt = frozenset(config.trusted_proxies)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        host = self.client[0] if self.client else ""
        key = (self.server, host)
        if self._capped(host) and self._open[key] >= self.per_client:
            self._refuse(503, "too many connections from this address")
            return
        self._open[key] += 1
        self._counted = key
        idle = self.timeout_keep_alive if self.idle_timeout_s is None else self.idle_timeout_s
        self._timer = self.loop.call_later(idle, self._idle_timeout)

    def _capped(self, host: str) -> bool:
        return host not in self.exempt and not (self.loopback_exempt and is_loopback(host))

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._linger is not None:
            self._linger.cancel()
        if self._counted is not None:
            self._open[self._counted] -= 1
            if self._open[self._counted] <= 0:
                del self._open[self._counted]
            self._counted = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused is not None:
            return
        # A head already begun when this chunk came: all of the chunk is head, or after it.
        self._whole_chunk = self._in_head
        super().data_received(data)
        if self._whole_chunk and self._in_head and self._refused is None:
            self._head_bytes += len(data)
            if self._head_bytes > self.max_header_bytes:
                self._refuse(431, "request headers too large")
        self._whole_chunk = False

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_bytes, self._fields, self._in_head = 0, 0, True
        self._disarm()  # the idle timer, on a new connection
        self._timer = self.loop.call_later(self.head_timeout_s, self._head_timeout)

    def on_url(self, url: bytes) -> None:
        self._parsed_head(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._fields += 1
        if self._fields > self.max_headers:
            self._refused = (431, "too many request headers")
            raise _Refusal
        self._parsed_head(len(name) + len(value))
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._disarm()
        super().on_headers_complete()

    def _parsed_head(self, size: int) -> None:
        """Count the request line and fields the parser hands over, for the chunk a head
        began in (later chunks are counted whole)."""
        if self._whole_chunk:
            return
        self._head_bytes += size
        if self._head_bytes > self.max_header_bytes:
            self._refused = (431, "request headers too large")
            raise _Refusal

    def send_400_response(self, msg: str) -> None:
        if self._refused is not None:  # parsing stopped by a refusal above
            status, message = self._refused
            self._refused = None
            self._refuse(status, message)
            return
        super().send_400_response(msg)

    def _idle_timeout(self) -> None:
        self._timer = None
        if not self._in_head and self.cycle is None:  # still not a byte of a request
            self.transport.close()

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _head_timeout(self) -> None:
        self._timer = None
        self._refuse(408, "request headers not received in time")

    def _refuse(self, status: int, message: str) -> None:
        """Answer `status` with a one-line body, then close (bytes still coming are ignored)."""
        self._disarm()
        self._refused = (status, message)
        if self.transport.is_closing():
            return
        body = message.encode()
        head = (b"content-type: text/plain; charset=utf-8\r\ncontent-length: "
                + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n")  # fmt: skip
        self.transport.write(STATUS_LINE[status] + head + body)
        if not self.transport.can_write_eof():
            self.transport.close()
            return
        # Closing with unread bytes in the socket would send a reset, which can destroy the
        # answer before the client reads it: say we are done, drain briefly, then close.
        self.transport.write_eof()
        self._linger = self.loop.call_later(LINGER_S, self.transport.close)
