"""Slow and oversized clients (issue 24, finding 5), against a real uvicorn with the server's
protocol (`server/protocol.py`) and raw sockets: headers trickled a byte at a time, or never
sent, are cut off with 408; 1 MB of headers and 10,000 header fields get 431; one address
cannot hold more than its share of connections. On today's main uvicorn waited for trickled
headers indefinitely and accepted both oversized requests."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server]")
import contextlib
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager

from sleuth.server.config import ServerConfig
from sleuth.server.protocol import HEAD_TIMEOUT_S, GuardedHttp
from tests.server.harness import serving

TRICKLE_S = 60.0  # how long the client would keep trickling: far past the server's limit
OPEN = ServerConfig(open_access=True)


class QuickCutOff(GuardedHttp):
    head_timeout_s = 0.5  # the production limits, shortened so the test waits less
    idle_timeout_s = 0.5


class QuickHeads(GuardedHttp):
    head_timeout_s = 0.5  # and the idle timeout uvicorn's keep-alive one


class SmallHeads(GuardedHttp):
    max_header_bytes = 1000  # so a few kilobytes of body would pass it if they were counted


class FewPerClient(GuardedHttp):
    per_client = 3
    loopback_exempt = False  # the test's client is on loopback, like no real attacker


@contextmanager
def connected(base: str) -> Iterator[socket.socket]:
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    try:
        yield sock
    finally:
        sock.close()


def answer(sock: socket.socket) -> bytes:
    """What the server sent until it closed the connection."""
    out = b""
    while chunk := sock.recv(65536):
        out += chunk
    return out


def response(sock: socket.socket) -> bytes:
    """One whole response on a kept-alive connection: its head and `content-length` bytes of
    body (they may come in separate segments)."""
    got = b""
    while b"\r\n\r\n" not in got:
        got += sock.recv(65536)
    head, _, body = got.partition(b"\r\n\r\n")
    length = next((int(line.split(b":")[1]) for line in head.lower().split(b"\r\n")
                   if line.startswith(b"content-length:")), 0)  # fmt: skip
    while len(body) < length:
        body += sock.recv(65536)
    return head + b"\r\n\r\n" + body


def trickle(sock: socket.socket, head: bytes) -> bytes:
    """Send `head`, then a header byte every 50 ms until the server answers and closes."""
    sock.sendall(head)
    sock.settimeout(0.05)
    started = time.monotonic()
    while time.monotonic() - started < TRICKLE_S:
        try:
            if chunk := sock.recv(65536):
                sock.settimeout(30)
                return chunk + answer(sock)
            return b""
        except TimeoutError:
            sock.sendall(b"x")
    return b"(still open)"


def test_trickled_or_missing_headers_are_cut_off() -> None:
    assert HEAD_TIMEOUT_S <= 10  # "a few seconds" in production
    with serving(OPEN, protocol=QuickCutOff) as served:
        with connected(served.base) as sock:
            got = trickle(sock, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        assert got.startswith(b"HTTP/1.1 408"), got[:80]
        with connected(served.base) as sock:  # connects and says nothing: closed, unanswered
            assert answer(sock) == b""
        with connected(served.base) as sock:  # one request answered, the next one trickled
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            first = response(sock)
            assert first.startswith(b"HTTP/1.1 200") and first.endswith(b'{"ok":true}')
            got = trickle(sock, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        assert got.startswith(b"HTTP/1.1 408"), got[:80]


def test_a_connection_is_not_cut_off_before_its_first_request_begins() -> None:
    """A pooled connection may wait longer than the head limit before its first request: no
    408 is sent into it ahead of time (a client would read it as the answer to that request)."""
    with serving(OPEN, protocol=QuickHeads) as served, connected(served.base) as sock:
        time.sleep(0.3)  # past half the head limit: a head timer started at connect would fire
        time.sleep(0.4)  # (before the request below has begun)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert response(sock).startswith(b"HTTP/1.1 200")


def test_the_tail_of_a_body_is_not_counted_as_the_next_head() -> None:
    """A request answered before its body was read (here /healthz, which reads none): the
    rest of the body and the start of the next request arrive in one read, and only the next
    request's own line and fields count against the head limit. Before, the whole read
    counted: a 1.5 MB body refused with 413 made the client's next request a 431."""
    first = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10000\r\n\r\n"
    second = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    with serving(OPEN, protocol=SmallHeads) as served:
        with connected(served.base) as sock:
            sock.sendall(first + b"a" * 5000)
            assert response(sock).startswith(b"HTTP/1.1 200")
            sock.sendall(b"a" * 5000 + second[:30])  # the head goes on in the next read
            time.sleep(0.2)
            sock.sendall(second[30:])
            got = response(sock)
        assert got.startswith(b"HTTP/1.1 200"), got[:80]


def refused(base: str, head: bytes) -> bytes:
    with connected(base) as sock:
        with contextlib.suppress(OSError):  # the server closed while the rest was going out
            sock.sendall(head)
        try:
            return answer(sock)
        except ConnectionResetError:
            return b"(reset)"


def test_oversized_headers_are_refused() -> None:
    start = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    big = start + b"X-Big: " + b"a" * 1_000_000 + b"\r\n\r\n"
    many = start + b"".join(b"X-H%d: v\r\n" % i for i in range(10_000)) + b"\r\n"
    with serving(OPEN) as served:
        assert refused(served.base, big).startswith(b"HTTP/1.1 431")
        assert refused(served.base, many).startswith(b"HTTP/1.1 431")
        fine = start + b"".join(b"X-H%d: %s\r\n" % (i, b"v" * 500) for i in range(60)) + b"\r\n"
        assert refused(served.base, fine.replace(b"HTTP/1.1", b"HTTP/1.0")).startswith(
            b"HTTP/1.1 200"
        )


def test_one_address_holds_at_most_its_share_of_connections() -> None:
    request = b"GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n"
    with serving(OPEN, protocol=FewPerClient) as served:
        host, port = served.base.removeprefix("http://").split(":")
        held = [socket.create_connection((host, int(port)), timeout=30) for _ in range(3)]
        try:
            held[0].sendall(b"G")  # a request begun: the connection is in use
            assert refused(served.base, request).startswith(b"HTTP/1.1 503")
            held.pop().close()
            time.sleep(0.2)  # the server sees the close (no assertion on time)
            for _ in range(50):
                got = refused(served.base, request)
                if got.startswith(b"HTTP/1.1 200"):
                    break
                time.sleep(0.1)
            assert got.startswith(b"HTTP/1.1 200"), got[:80]
        finally:
            for sock in held:
                sock.close()
