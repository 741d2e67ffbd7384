"""`sleuth doctor` — one aggregated health report; exit 1 when anything is broken."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import click

from .. import __version__
from .configmap import load
from .hints import OFFLINE_WAYS
from .options import LLM, table_options
from .render import echo
from .runner import with_app

if TYPE_CHECKING:
    from ..app.doctor import Check

EXAMPLES = """
\b
Examples:
  sleuth doctor
  sleuth doctor --search=searxng --json
  sleuth doctor --browser-cdp-endpoint=http://127.0.0.1:9222
"""


@click.command(epilog=EXAMPLES)
@table_options(
    "search",
    *LLM,
    "browser_executable",
    "browser_cdp_endpoint",
    "cache_dir",
    "cache_ttl",
    "sessions_dir",
    "json",
)
def doctor(**flags: Any) -> None:
    """Check the environment, caches (size and age), LLM endpoint, search backend and browser."""
    resolved = load()
    values = resolved.given("engine")
    checks = with_app(lambda app: app.doctor(**values), resolved.settings())
    if resolved.values["json"]:
        failed = sum(c.status == "fail" for c in checks)
        echo(json.dumps({"ok": failed == 0, "checks": [asdict(c) for c in checks]}, indent=2))
    else:
        render(checks)
        if any(c.section == "search" and c.status == "fail" for c in checks):
            click.echo(f"hint: {OFFLINE_WAYS}")
    if any(c.status == "fail" for c in checks):
        raise SystemExit(1)


def render(checks: list[Check]) -> None:
    echo(f"sleuth doctor — v{__version__}")
    section = ""
    for c in checks:
        if c.section != section:
            section = c.section
            echo(f"\n# {section}")
        mark = {"ok": "OK  ", "warn": "WARN", "fail": "FAIL", "info": "--- "}[c.status]
        echo(f"{mark} {c.name:<12} {c.detail}")
    counts = {s: sum(c.status == s for c in checks) for s in ("ok", "warn", "fail")}
    echo(
        f"\nSummary: {len(checks)} checks · {counts['ok']} ok · {counts['warn']} warn · "
        f"{counts['fail']} fail"
    )


COMMANDS = [doctor]
