"""The service bench's load generator: wrk driven through its Lua script, the figures read
back (rate, percentiles, statuses) from a real loopback server answering 200 and 404."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from bench.load import Target, measure, script, together


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        length = int(self.headers.get("content-length", "0"))
        body = self.rfile.read(length)
        status = 200 if body == b'{"n": 1}' and self.headers.get("x-api-key") == "k" else 404
        self.send_response(status)
        self.send_header("content-length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args: object) -> None:
        return None


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


def test_the_script_carries_the_method_headers_and_bodies() -> None:
    text = script(Target("t", "http://x/", "POST", {"X-API-Key": 'a"b'}, ('{"q": 1}', "two")))
    assert 'wrk.method = "POST"' in text and 'wrk.headers["X-API-Key"] = "a\\"b"' in text
    assert 'local bodies = { "{\\"q\\": 1}", "two" }' in text


@pytest.mark.skipif(shutil.which("wrk") is None, reason="Debian's wrk is not installed")
def test_wrk_figures_are_read_back_by_status(server: str) -> None:
    target = Target("mixed", server, "POST", {"X-API-Key": "k"}, ('{"n": 1}', '{"n": 2}'))
    found = measure(target, 2, 1)
    assert found.requests > 10 and found.errors == 0
    assert set(found.statuses) == {200, 404} and sum(found.statuses.values()) == found.requests
    assert abs(found.statuses[200] - found.statuses[404]) <= 2  # the bodies alternate
    assert 0 < found.p50_ms <= found.p99_ms and found.per_s > 0
    both = together([(target, 1), (Target("plain", server, "POST"), 1)], 1)
    assert [m.label for m in both] == ["mixed", "plain"] and set(both[1].statuses) == {404}
