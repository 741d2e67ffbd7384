"""`sleuth mcp`: Sleuth's research and search tools for an MCP client (Claude Desktop, Cursor,
any agent) over stdio. The `mcp` SDK is imported only when it runs."""

from __future__ import annotations

from typing import Any

import click

from ..errors import UsageError
from ..extras import install_hint
from .configmap import load
from .options import table_options
from .serve_cmd import ENGINE

EXAMPLES = """
\b
Examples (an MCP client starts it; see docs/mcp.md):
  sleuth mcp
  sleuth mcp --search=searxng --base-url=http://127.0.0.1:11434/v1 --model=qwen3
"""


@click.command("mcp", epilog=EXAMPLES)
@table_options(*ENGINE)
def mcp(**flags: Any) -> None:
    """Serve the research and search tools over stdio (the Model Context Protocol).

    The client starts this command and talks to it on stdin/stdout; runs are saved as sessions.
    For MCP over HTTP, `sleuth serve` serves /api/mcp and /api/mcp/sse.
    """
    try:
        from ..server.mcp.local import serve_stdio
    except ImportError as exc:
        raise UsageError(
            f"sleuth mcp needs the mcp extra ({exc.name} is missing): {install_hint('mcp')}"
        ) from None
    resolved = load()
    serve_stdio(resolved.given("engine", "run", "session"), resolved.settings())


COMMANDS = [mcp]
