"""Starting the server: who may call it, logging, and uvicorn (one process, or several
workers sharing the SQLite store)."""

from __future__ import annotations

import json
import logging
import os
import sys
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any

import uvicorn
from fastapi import FastAPI

from ..app.application import Sleuth
from ..errors import UsageError
from ..settings import Settings
from ..settings.resolve import Resolved
from .app import create_app
from .config import ServerConfig, is_loopback, server_config

CONFIG_ENV = "SLEUTH_SERVE_CONFIG"  # how workers get the parent's configuration
GRACE_S = 30  # in-flight requests get this long to finish on shutdown; then runs are cancelled
# An idle keep-alive connection is kept this long: longer than a proxy keeps its idle upstream
# connections (nginx: 60 s, deploy/nginx.conf), so the proxy closes first and never sends a
# request down a connection the replica closed a moment before. With uvicorn's default (5 s) a
# 50-client bench saw about one reset in 50,000 requests, most likely that race.
KEEP_ALIVE_S = 65


@dataclass(frozen=True, slots=True)
class ServeOptions:
    """What `sleuth serve` / `sleuth ui` resolved, and whether to serve without keys."""

    resolved: Resolved
    no_auth: bool = False

    @property
    def workers(self) -> int:
        return int(self.resolved.values["workers"])


def access_mode(host: str, no_auth: bool, has_keys: bool) -> bool:
    """Whether to serve openly (no key needed); refuses an open non-loopback server."""
    if no_auth:
        return True
    if has_keys:
        return False
    if not is_loopback(host):
        raise UsageError(
            f"no API keys exist and --host {host} is not loopback: anyone who can reach it "
            "could run research (and spend your model budget) here. Create a key with "
            "`sleuth keys create --org NAME`, or pass --no-auth to serve openly on purpose."
        )
    return True


async def _has_keys(settings: Settings) -> bool:
    """Whether any key exists; opening the store migrates it, or refuses (a StoreError) a
    database whose schema is newer than this Sleuth knows, before the server starts."""
    async with Sleuth(settings) as app:
        return await app.service_store.has_keys()


def config_for(options: ServeOptions) -> ServerConfig:
    import asyncio

    has_keys = asyncio.run(_has_keys(options.resolved.settings()))
    values = options.resolved.values
    password = bool(values["access_password"])
    return server_config(
        values,
        open_access=access_mode(values["host"], options.no_auth, has_keys or password),
        defaults=options.resolved.given("engine", "run", "session"),
    )


def run(options: ServeOptions) -> None:
    config = config_for(options)
    setup_logging()
    mode = "open (no key needed; org 'local')" if config.open_access else "API keys required"
    print(
        f"sleuth: Research API on http://{config.host}:{config.port}/api "
        f"(docs /api/docs); access: {mode}",
        file=sys.stderr,
        flush=True,
    )
    common: dict[str, Any] = {
        "host": config.host,
        "port": config.port,
        "access_log": False,  # our own JSON access log has org, route, cost and request id
        "timeout_graceful_shutdown": GRACE_S,
        "timeout_keep_alive": KEEP_ALIVE_S,
        "log_level": "info",
    }
    if options.workers == 1:
        uvicorn.run(create_app(config, app=Sleuth(options.resolved.settings())), **common)
        return
    os.environ[CONFIG_ENV] = json.dumps(_config_json(config), default=str)
    uvicorn.run("sleuth.server.main:worker_app", factory=True, workers=options.workers, **common)


def worker_app() -> FastAPI:
    """The app of one worker process, from the configuration its parent left in the env."""
    setup_logging()
    data = json.loads(os.environ[CONFIG_ENV])
    data["defaults"] = MappingProxyType(data["defaults"])
    return create_app(ServerConfig(**data))


def _config_json(config: ServerConfig) -> dict[str, Any]:
    data = {f.name: getattr(config, f.name) for f in fields(config) if f.name != "defaults"}
    data["defaults"] = {k: list(v) if isinstance(v, tuple) else v
                        for k, v in config.defaults.items()}  # fmt: skip
    return data


def setup_logging() -> None:
    """JSON access lines and errors on stderr, one line each."""
    logger = logging.getLogger("sleuth.server")
    if logger.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
