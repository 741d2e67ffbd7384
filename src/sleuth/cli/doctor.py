"""`sleuth doctor` — one aggregated health report; exit 1 when anything is broken."""

from __future__ import annotations

import asyncio
import json
import platform
import sqlite3
import sys
import time
from dataclasses import asdict, dataclass
from typing import Literal

import click

from .. import __version__
from ..errors import SleuthError
from ..ports import Message, SearchQuery, TokenUsage
from ..settings import Settings, sleuth_home
from .options import llm_options, option

Status = Literal["ok", "warn", "fail", "info"]
EXAMPLES = """
\b
Examples:
  sleuth doctor
  sleuth doctor --search=searxng --json
"""


@dataclass(frozen=True, slots=True)
class Check:
    section: str
    name: str
    status: Status
    detail: str


@click.command(epilog=EXAMPLES)
@option(
    "--search",
    default="duckduckgo",
    show_default=True,
    metavar="SPEC",
    help="Search backend to probe.",
)
@llm_options
@option("--json", "as_json", is_flag=True, envvar="SLEUTH_JSON", help="Print checks as JSON.")
def doctor(
    search: str,
    base_url: str | None,
    api_key: str | None,
    model: str | None,
    api_format: str,
    as_json: bool,
) -> None:
    """Check the environment, cache, LLM endpoint, search backend and browser."""
    settings = Settings(
        search=search, base_url=base_url, api_key=api_key, model=model, api_format=api_format
    )
    checks = environment() + cache() + asyncio.run(llm(settings)) + asyncio.run(probe(settings))
    checks += browser()
    if as_json:
        failed = sum(c.status == "fail" for c in checks)
        click.echo(json.dumps({"ok": failed == 0, "checks": [asdict(c) for c in checks]}, indent=2))
    else:
        render(checks)
    if any(c.status == "fail" for c in checks):
        raise SystemExit(1)


def environment() -> list[Check]:
    return [
        Check("environment", "python", "ok", sys.version.split()[0]),
        Check("environment", "platform", "info", f"{platform.system()} {platform.machine()}"),
        Check("environment", "sleuth", "info", __version__),
    ]


def cache() -> list[Check]:
    home = sleuth_home()
    try:
        home.mkdir(parents=True, exist_ok=True)
        probe_file = home / ".doctor-probe"
        probe_file.write_text("ok")
        probe_file.unlink()
    except OSError as exc:
        return [Check("cache", "dir", "fail", f"{home} is not writable: {exc.strerror}")]
    checks = [Check("cache", "dir", "ok", str(home))]
    db = home / "cache.db"
    if db.exists():
        with sqlite3.connect(db) as conn:
            try:
                (count,) = conn.execute("select count(*) from pages").fetchone()
                checks.append(Check("cache", "pages", "info", f"{count} cached pages"))
            except sqlite3.Error as exc:
                checks.append(Check("cache", "pages", "fail", f"unreadable cache: {exc}"))
    return checks


async def llm(settings: Settings) -> list[Check]:
    from ..app.assemble import llm_settings
    from ..llm.factory import build_chat_model
    from ..llm.meter import Meter

    try:
        model = build_chat_model(llm_settings(settings), Meter(None), stage="synth")
    except SleuthError as exc:
        return [Check("llm", "config", "fail", str(exc))]
    if model is None:
        return [
            Check("llm", "config", "warn", "no LLM configured: answers use the extractive writer")
        ]
    started = time.monotonic()
    try:
        async for item in model.stream([Message("user", "Say OK.")], max_tokens=1):
            if isinstance(item, TokenUsage):
                break
    except SleuthError as exc:
        return [Check("llm", model.name, "fail", str(exc))]
    ms = int((time.monotonic() - started) * 1000)
    return [Check("llm", model.name, "ok", f"reachable, answered in {ms} ms")]


async def probe(settings: Settings) -> list[Check]:
    from ..app.assemble import backend_settings
    from ..search.spec import build_search

    started = time.monotonic()
    try:
        backend = build_search(settings.search, backend_settings(settings))
        results = await asyncio.wait_for(backend.search(SearchQuery("sleuth research", 3)), 20)
    except (SleuthError, TimeoutError) as exc:
        return [Check("search", settings.search, "fail", str(exc) or "timed out")]
    ms = int((time.monotonic() - started) * 1000)
    status: Status = "ok" if results else "warn"
    return [Check("search", settings.search, status, f"{len(results)} results in {ms} ms")]


def browser() -> list[Check]:
    try:
        from ..fetch.browser import BrowserSettings, browser_status
    except ImportError:
        return [
            Check(
                "browser",
                "playwright",
                "info",
                "not installed (optional: pip install 'sleuth[browser]')",
            )
        ]
    ok, detail = browser_status(BrowserSettings())
    return [Check("browser", "chromium", "ok" if ok else "warn", detail)]


def render(checks: list[Check]) -> None:
    click.echo(f"sleuth doctor — v{__version__}")
    section = ""
    for c in checks:
        if c.section != section:
            section = c.section
            click.echo(f"\n# {section}")
        mark = {"ok": "OK  ", "warn": "WARN", "fail": "FAIL", "info": "--- "}[c.status]
        click.echo(f"{mark} {c.name:<12} {c.detail}")
    counts = {s: sum(c.status == s for c in checks) for s in ("ok", "warn", "fail")}
    click.echo(
        f"\nSummary: {len(checks)} checks · {counts['ok']} ok · {counts['warn']} warn · "
        f"{counts['fail']} fail"
    )


COMMANDS = [doctor]
