"""The request handler: one HTTP/1.1 server that is a forward proxy for the site's absolute
`http://` URLs, a SearXNG-compatible `/search`, and a few paths of its own (`/secret`, ...)."""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from tests.testweb.pages import HTML, Page, normalize_url
from tests.testweb.searx import searx_response

if TYPE_CHECKING:
    from tests.testweb.server import TestWeb

# A hang lasts until the test ends or the server stops; this only bounds a forgotten one.
MAX_HANG_S = 300.0

_NOT_FOUND = (
    b"<!doctype html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1>"
    b"<p>The requested URL was not found on this server.</p></body></html>"
)
# What a search answer looks like when a captcha or login wall is in front of the instance.
_NOT_JSON = (
    b"<!doctype html><html><head><title>Too Many Requests</title></head><body>"
    b"<p>Please complete the security check to access this service.</p></body></html>"
)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, address: tuple[str, int], web: TestWeb) -> None:
        self.web = web
        super().__init__(address, Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients hang up on purpose all the time here (timeouts, size caps): not an error.
        if isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Server
    # Reaps idle keep-alive connections and writes to a client that stopped reading.
    timeout = 30

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._route(body=b"")

    def do_HEAD(self) -> None:
        self._route(body=b"")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self._route(body=self.rfile.read(length))

    def do_CONNECT(self) -> None:
        # No TLS here: the site is plain http://, so a tunnel request is recorded and refused.
        self.server.web.record(
            "CONNECT", normalize_url(f"https://{self.path}/"), self.headers.items()
        )
        self._send(502, b"CONNECT is not supported by the test web", "text/plain")
        self.close_connection = True

    def _route(self, body: bytes) -> None:
        web = self.server.web
        release = web.release_event
        target = self.path
        if target.startswith(("http://", "https://")):
            target = normalize_url(target)
            if web.is_self(target):  # the server itself asked for through the proxy
                target = _path_of(target)
        web.record(self.command, target, self.headers.items())
        if target.startswith("/"):
            parts = urlsplit(target)
            self._direct(parts.path, parts.query, body, release)
        else:
            self._proxied(target, release)

    def _direct(self, path: str, query: str, body: bytes, release: threading.Event) -> None:
        if path == "/search":
            params = parse_qs(query) | parse_qs(body.decode("latin-1"))
            self._search(params, release)
        elif path == "/healthz":
            self._send(200, b"ok", "text/plain")
        else:
            self._page(self.server.web.lookup(f"{path}?{query}" if query else path), release)

    def _proxied(self, url: str, release: threading.Event) -> None:
        web = self.server.web
        fault = web.fault_for(urlsplit(url).hostname or "")
        if fault.hang:
            self._hang(release, MAX_HANG_S)
            return
        if fault.delay_s and release.wait(fault.delay_s):
            self.close_connection = True
            return
        if fault.status is not None:
            text = f"<html><body><h1>{fault.status} Error</h1></body></html>".encode()
            self._send(fault.status, text, HTML)
            return
        self._page(web.lookup(url), release)

    def _page(self, page: Page | None, release: threading.Event) -> None:
        if page is None:
            self._send(404, _NOT_FOUND, HTML)
            return
        if page.delay_s and release.wait(page.delay_s):
            self.close_connection = True
            return
        if page.stream is not None:
            self._send_stream(page, release)
            return
        body = page.lazy_body() if page.lazy_body else page.body
        self._send(page.status, body, page.content_type, page.headers)

    def _search(self, params: dict[str, list[str]], release: threading.Event) -> None:
        web = self.server.web
        query = params.get("q", [""])[0]
        if params.get("format", ["html"])[0] != "json":
            self._send(403, b"<html><body>403 Forbidden</body></html>", HTML)
            return
        mode = web.search_mode
        if mode == "hang":
            self._hang(release, MAX_HANG_S)
        elif mode == "error500":
            self._send(500, b"<html><body>Internal Server Error</body></html>", HTML)
        elif mode == "not_json":
            self._send(200, _NOT_JSON, HTML)
        else:
            results = web.search_results(query, _pageno(params))
            body = json.dumps(searx_response(query, results)).encode()
            self._send(200, body, "application/json")

    def _hang(self, release: threading.Event, limit_s: float) -> None:
        release.wait(limit_s)
        self.close_connection = True  # and no response at all: the client only sees a hang

    def _send(
        self,
        status: int,
        body: bytes,
        content_type: str,
        headers: tuple[tuple[str, str], ...] = (),
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _send_stream(self, page: Page, release: threading.Event) -> None:
        assert page.stream is not None
        chunked = page.stream_length is None
        self.send_response(page.status)
        self.send_header("Content-Type", page.content_type)
        for name, value in page.headers:
            self.send_header(name, value)
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(page.stream_length))
        # A stream may be cut short by the end of the test: never reuse the connection after it.
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        if self.command == "HEAD":
            return
        for chunk in page.stream(release):
            if not chunk:
                continue  # an empty chunk would end a chunked body early
            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk)
        if chunked:
            self.wfile.write(b"0\r\n\r\n")


def _pageno(params: dict[str, list[str]]) -> int:
    raw = params.get("pageno", ["1"])[0]
    return int(raw) if raw.isdigit() and int(raw) > 0 else 1


def _path_of(url: str) -> str:
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
