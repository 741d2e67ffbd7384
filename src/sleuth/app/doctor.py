"""The health checks behind `doctor`: environment, storage, LLM endpoint, search, browser."""

from __future__ import annotations

import asyncio
import platform
import sqlite3
import sys
import time
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Literal

from ..errors import SearchError, SleuthError
from ..ports import Message, SearchQuery, TokenUsage
from ..settings import Settings

Status = Literal["ok", "warn", "fail", "info"]


@dataclass(frozen=True, slots=True)
class Check:
    section: str
    name: str
    status: Status
    detail: str


async def run_checks(home: Path, settings: Settings) -> list[Check]:
    checks = environment() + plugins() + storage(home)
    checks += await llm(settings)
    checks += await probe(settings)
    return checks + await browser(settings)


def environment() -> list[Check]:
    return [
        Check("environment", "python", "ok", sys.version.split()[0]),
        Check("environment", "platform", "info", f"{platform.system()} {platform.machine()}"),
        Check("environment", "sleuth", "info", version("sleuth")),
    ]


def plugins() -> list[Check]:
    """Third-party plugins that could not register (they are left out of every run)."""
    from ..registry import registries

    broken = registries().search.broken
    return [Check("plugins", name, "warn", f"not loaded: {why}") for name, why in broken.items()]


def storage(home: Path) -> list[Check]:
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
    from ..llm.factory import build_chat_model
    from ..llm.meter import Meter
    from .assemble import llm_settings

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
    finally:
        close = getattr(model, "aclose", None)
        if close is not None:
            await close()
    ms = int((time.monotonic() - started) * 1000)
    return [Check("llm", model.name, "ok", f"reachable, answered in {ms} ms")]


async def probe(settings: Settings) -> list[Check]:
    from ..search.spec import build_search
    from .assemble import backend_settings

    started = time.monotonic()
    try:
        backend = build_search(settings.search, backend_settings(settings))
        results = await asyncio.wait_for(backend.search(SearchQuery("sleuth research", 3)), 20)
    except SearchError as exc:
        unreachable = all(leaf.cause == "unreachable" for leaf in exc.leaves())
        detail = f"no network? {exc}" if unreachable else str(exc)
        return [Check("search", settings.search, "fail", detail)]
    except (SleuthError, TimeoutError) as exc:
        return [Check("search", settings.search, "fail", str(exc) or "timed out")]
    ms = int((time.monotonic() - started) * 1000)
    status: Status = "ok" if results else "warn"
    return [Check("search", settings.search, status, f"{len(results)} results in {ms} ms")]


async def browser(settings: Settings) -> list[Check]:
    """The browser the settings name (a remote one over CDP, a given executable, or chromium
    on PATH), started and closed; only a note when the optional extra is absent."""
    from ..extras import install_hint, installed
    from ..fetch.browser import BrowserSettings, probe_browser

    if not installed("browser"):
        detail = f"not installed (optional: the browser extra, {install_hint('browser')})"
        return [Check("browser", "playwright", "info", detail)]
    config = BrowserSettings(
        executable=settings.browser_executable, cdp_endpoint=settings.browser_cdp_endpoint
    )
    ok, detail = await probe_browser(config)
    name = "cdp" if config.cdp_endpoint else "chromium"
    # A browser the settings name (an endpoint, an executable, `browser = always`) that does
    # not answer breaks every run that reads a page through it: a failure. The default one
    # only helps when plain HTTP reads too little: its absence is a warning.
    named = bool(config.cdp_endpoint or config.executable) or settings.browser == "always"
    return [Check("browser", name, "ok" if ok else ("fail" if named else "warn"), detail)]
