"""A tiny recording web for the fetcher tests.

One loopback server plays two roles: the origin for `http://127.0.0.1:PORT/...` and a forward
proxy (HTTP_PROXY) for every other `http://` host, so public-looking URLs are served under their
real names. Every request that reaches it is recorded, which is how the SSRF tests prove that a
refused URL was never requested.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# A streamed body: given the server's stop event, yields the body piece by piece.
Chunks = Callable[[threading.Event], Iterator[bytes]]


@dataclass(frozen=True, slots=True)
class Reply:
    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    stream: Chunks | None = None  # sent without Content-Length, ended by closing


class RecordingWeb:
    def __init__(self) -> None:
        self.routes: dict[str, Reply] = {}
        self.hits: list[str] = []
        self.stop = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def add(self, url: str, reply: Reply) -> str:
        self.routes[url] = reply
        return url

    def redirect(self, url: str, location: str, status: int = 302) -> str:
        return self.add(url, Reply(status=status, headers=(("Location", location),)))

    def _serve(self) -> None:
        self._server.serve_forever(poll_interval=0.02)  # a quick shutdown keeps tests fast

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        self.stop.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def _handler_for(web: RecordingWeb) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            # Absolute-form target: we are being used as a proxy. Otherwise we are the origin.
            url = self.path if "://" in self.path else f"http://{self.headers['Host']}{self.path}"
            web.hits.append(url)
            reply = web.routes.get(url, Reply(b"not found", "text/plain", 404))
            # The client may hang up on purpose: a cap or a deadline cut the body.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self._send(reply)

        def _send(self, reply: Reply) -> None:
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            self.send_header("Connection", "close")
            for name, value in reply.headers:
                self.send_header(name, value)
            if reply.stream is None:
                self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            if reply.stream is None:
                self.wfile.write(reply.body)
                return
            for piece in reply.stream(web.stop):
                self.wfile.write(piece)
                self.wfile.flush()

        def log_message(self, format: str, *args: object) -> None:
            return None

    return Handler
