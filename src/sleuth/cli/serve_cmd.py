"""`sleuth serve`: the Research API and the web UI over HTTP; `sleuth ui`: the same on loopback
at a free port, opened in the default browser. FastAPI and uvicorn (the `server` extra) are
imported only when they run, so the rest of the CLI starts as fast without them."""

from __future__ import annotations

import socket
import sys
import threading
import time
import webbrowser
from collections.abc import Callable
from typing import Any

import click

from ..errors import UsageError
from ..extras import install_hint
from .configmap import load
from .options import LLM, option, table_options

ENGINE = (
    "search", "search_fallback", "include", "no_cache", "browser", "browser_executable",
    "browser_cdp_endpoint", "pdf_max_pages", *LLM, "plan_model", "critic_model",
    "context_tokens", "max_cost",
)  # fmt: skip
SERVER = ("run_slots", "org_runs", "org_rate", "result_cache_ttl")  # besides host, port, workers
# How it faces the network, and what a request may choose of the operator's models.
EDGE = (
    "allowed_hosts", "trusted_proxies", "metrics_token", "allowed_models", "allowed_providers",
)  # fmt: skip
EXAMPLES = """
\b
Examples:
  sleuth keys create --org acme        # prints the key once
  sleuth serve --port 8000
  sleuth serve --host 0.0.0.0 --allowed-hosts sleuth.example.com --trusted-proxies 10.0.0.2
  sleuth serve --host 0.0.0.0 --workers 2 --search=searxng --base-url=http://127.0.0.1:11434/v1
"""


@click.command("serve", epilog=EXAMPLES)
@table_options("host", "port", "workers")
@option(
    "--no-auth",
    is_flag=True,
    help="Serve without API keys: every request acts for the organization 'local'.",
)
@table_options(*SERVER, *ENGINE, *EDGE)
def serve(no_auth: bool, **flags: Any) -> None:
    """Serve the Research API (research, search, extract; docs at /api/docs), the OpenAI-style
    chat API at /v1 (docs/openai-compatible.md) and the web UI.

    Binds to loopback unless --host says otherwise. With no API keys and no
    SLEUTH_ACCESS_PASSWORD it serves openly, and only on loopback; --no-auth serves openly on
    purpose, also only on loopback. Exposed servers answer only to the names in
    --allowed-hosts (docs/serving.md). Settings also come from config.toml and SLEUTH_*
    variables (docs/settings.md).
    """
    ServeOptions, run = _server("serve")
    run(ServeOptions(load(), no_auth))


def _server(command: str) -> tuple[Any, Any]:
    try:
        from ..server.main import ServeOptions, run
    except ImportError as exc:
        raise UsageError(
            f"sleuth {command} needs the server extra ({exc.name} is missing): "
            f"{install_hint('server')}"
        ) from None
    return ServeOptions, run


UI_EXAMPLES = """
\b
Examples:
  sleuth ui                             # opens http://127.0.0.1:<free port>/ in your browser
  sleuth ui --no-open --port 8080 --search=wikipedia
  SLEUTH_ACCESS_PASSWORD=... sleuth ui  # the UI asks for the password
"""


@click.command("ui", epilog=UI_EXAMPLES)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    help="Port on 127.0.0.1 (default: a free one).",
)
@click.option(
    "--no-open",
    is_flag=True,
    help="Print the address (on stdout, once it listens); do not open a browser.",
)
@table_options(*ENGINE)
def ui(port: int, no_open: bool, **flags: Any) -> None:
    """Open the web UI: research in the browser, served on loopback only.

    Nothing to configure: it listens on 127.0.0.1 at a free port and opens your default
    browser. With SLEUTH_ACCESS_PASSWORD set, the UI asks for it.
    """
    ServeOptions, run = _server("ui")
    port = port or free_port()
    url = f"http://127.0.0.1:{port}/"
    local = {"host": "127.0.0.1", "port": port, "workers": 1}  # loopback, one process
    when_listening(port, lambda: _announce(url, open_browser=not no_open))
    run(ServeOptions(load(fixed=local), no_auth=True))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def when_listening(port: int, then: Callable[[], None], timeout_s: float = 60.0) -> None:
    """Call `then` once something accepts connections on the port (the server is up)."""

    def wait() -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            except OSError:
                time.sleep(0.1)
                continue
            then()
            return

    threading.Thread(target=wait, name="sleuth-ui-open", daemon=True).start()


def _announce(url: str, *, open_browser: bool) -> None:
    """Once it listens: the address alone on stdout (for a script: `sleuth ui --no-open`), and
    the browser opened unless asked not to."""
    print(url, flush=True)
    if open_browser and not webbrowser.open(url):
        print("sleuth: could not open a browser; open the address above", file=sys.stderr)


COMMANDS = [serve, ui]
