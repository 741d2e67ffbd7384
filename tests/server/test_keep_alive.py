"""`sleuth serve` keeps an idle keep-alive connection longer than a proxy keeps its idle
upstream connections, so a request sent on a reused connection is answered, not reset."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
import signal
import socket
import time

from tests.server.test_sdk import _wait_ready, free_port, start_serve
from tests.testweb.server import TestWeb

REQUEST = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def _response(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data or not data.rstrip().endswith(b"}"):
        chunk = conn.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def test_a_connection_idle_past_uvicorns_default_is_still_served(testweb_env: TestWeb) -> None:
    port = free_port()
    proc = start_serve(port)
    try:
        _wait_ready(f"http://127.0.0.1:{port}", proc)
        with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
            conn.sendall(REQUEST)
            assert _response(conn).startswith(b"HTTP/1.1 200")
            time.sleep(6)  # uvicorn's default keep-alive (5 s) closed the connection here
            conn.sendall(REQUEST)
            assert _response(conn).startswith(b"HTTP/1.1 200")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
