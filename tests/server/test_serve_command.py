"""`sleuth serve` and `sleuth ui` as a user starts them (issue 24: no open server off loopback;
issue 27: the start-up lines say where the UI is and whether it can be used, and
`sleuth ui --no-open` prints its address)."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server]")
import os
import selectors
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

import httpx

from sleuth.errors import UsageError
from sleuth.server.config import ServerConfig
from sleuth.server.main import access_mode, announce, uvicorn_options
from tests.cli.helpers import run
from tests.server.test_sdk import free_port

START_S = 60.0


@contextmanager
def started(*args: str, env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[str]]:
    command = [sys.executable, "-m", "sleuth.cli", *args]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})  # fmt: skip
    with proc:  # closes the pipes
        try:
            yield proc
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


def lines_until(stream: IO[str], marker: str) -> list[str]:
    """Lines of `stream` up to the first holding `marker` (or all there were in START_S)."""
    selector = selectors.DefaultSelector()
    selector.register(stream, selectors.EVENT_READ)
    seen: list[str] = []
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline and selector.select(timeout=deadline - time.monotonic()):
        line = stream.readline()
        if not line:
            break
        seen.append(line.rstrip("\n"))
        if marker in line:
            break
    return seen


def test_an_open_server_is_refused_off_loopback_even_with_no_auth() -> None:
    """On today's main `sleuth serve --no-auth --host 0.0.0.0` served openly to the network."""
    with pytest.raises(UsageError, match="not loopback"):
        access_mode("0.0.0.0", no_auth=True, has_keys=True)
    with pytest.raises(UsageError, match="not loopback"):
        access_mode("192.0.2.7", no_auth=False, has_keys=False)
    assert access_mode("127.0.0.1", no_auth=True, has_keys=True) is True
    assert access_mode("0.0.0.0", no_auth=False, has_keys=True) is False
    done = subprocess.run(
        [sys.executable, "-m", "sleuth.cli", "serve", "--no-auth", "--host", "0.0.0.0",
         "--port", str(free_port())],
        capture_output=True, text=True, timeout=START_S,
    )  # fmt: skip
    assert done.returncode != 0 and "not loopback" in done.stderr


def test_the_start_up_lines_say_where_the_ui_is_and_how_to_reach_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """After `keys create` then `serve`, the UI is off until a password is set: say so."""
    code, _, err = run(["keys", "create", "--org", "acme"], capsys)
    assert code == 0, err
    port = free_port()
    with started("serve", "--port", str(port)) as proc:
        assert proc.stderr is not None
        said = "\n".join(lines_until(proc.stderr, "answers to Host"))
    assert f"web UI at http://127.0.0.1:{port}/ is off" in said
    assert "set SLEUTH_ACCESS_PASSWORD" in said and "API keys required" in said
    config = ServerConfig(port=port, access_password="scrypt$x", allowed_hosts=("a.example",))
    assert "sign in with SLEUTH_ACCESS_PASSWORD" in announce(config)
    assert "a.example" in announce(config) and "127.0.0.1" in announce(config)
    assert "(open: loopback only)" in announce(ServerConfig(port=port, open_access=True))


def test_ui_no_open_prints_its_address_on_stdout() -> None:
    with started("ui", "--no-open", "--search=wikipedia") as proc:
        assert proc.stdout is not None
        printed = lines_until(proc.stdout, "http://")
        assert printed and printed[0].startswith("http://127.0.0.1:")
        page = httpx.get(printed[0], headers={"Accept": "text/html"}, timeout=30)
        assert page.status_code == 200 and "Sleuth" in page.text


def test_the_server_runs_on_asyncios_loop_which_accepts_every_waiting_connection() -> None:
    """Under load uvloop accepted about one new connection per loop iteration: with 200
    connections opened at once the last waited 2-5 s for a first answer the others got in
    60 ms (issue 26's mix; bench/results/2026-12-04-service-loop.md). asyncio's loop accepts
    all that are waiting whenever the listening socket is ready."""
    assert uvicorn_options(ServerConfig())["loop"] == "asyncio"
