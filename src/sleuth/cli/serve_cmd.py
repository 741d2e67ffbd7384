"""`sleuth serve`: the Research API over HTTP. FastAPI and uvicorn (the `server` extra) are
imported only when it runs, so the rest of the CLI starts as fast without them."""

from __future__ import annotations

from typing import Any

import click

from ..errors import UsageError
from ..extras import install_hint
from .options import LLM, settings_values, table_options

ENGINE = (
    "search", "search_fallback", "include", "no_cache", "browser", "browser_executable",
    "browser_cdp_endpoint", "pdf_max_pages", *LLM, "plan_model", "critic_model",
    "context_tokens", "max_cost",
)  # fmt: skip
EXAMPLES = """
\b
Examples:
  sleuth keys create --org acme        # prints the key once
  sleuth serve --port 8000
  sleuth serve --host 0.0.0.0 --workers 2 --search=searxng --base-url=http://127.0.0.1:11434/v1
"""


@click.command("serve", epilog=EXAMPLES)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True)
@click.option(
    "--no-auth",
    is_flag=True,
    help="Serve without API keys: every request acts for the organization 'local'.",
)
@click.option(
    "--run-slots",
    type=click.IntRange(1, 1024),
    default=4,
    show_default=True,
    help="Runs at once per worker; more get 503 SERVER_BUSY with Retry-After.",
)
@click.option(
    "--org-runs",
    type=click.IntRange(0),
    default=2,
    show_default=True,
    help="Runs at once per organization (0: no limit); more get 429.",
)
@click.option(
    "--org-rate",
    type=click.IntRange(0),
    default=0,
    show_default=True,
    help="Requests a minute per organization (0: no limit); more get 429.",
)
@table_options(*ENGINE)
def serve(
    host: str,
    port: int,
    workers: int,
    no_auth: bool,
    run_slots: int,
    org_runs: int,
    org_rate: int,
    **flags: Any,
) -> None:
    """Serve the Research API (research, search, extract; docs at /api/docs).

    Binds to loopback unless --host says otherwise. With no API keys created it refuses a
    non-loopback host unless --no-auth is given; on loopback it then serves openly.
    """
    try:
        from ..server.main import ServeOptions, run
    except ImportError as exc:
        raise UsageError(
            f"sleuth serve needs the server extra ({exc.name} is missing): {install_hint('server')}"
        ) from None
    options = ServeOptions(
        host, port, workers, no_auth, run_slots, org_runs or None, org_rate or None,
        settings_values(flags),
    )  # fmt: skip
    run(options)


COMMANDS = [serve]
