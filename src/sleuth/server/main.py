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
from ..settings import Settings, sleuth_home
from ..settings.resolve import Resolved
from .app import create_app
from .config import ServerConfig, is_loopback, server_config
from .edge import allowed_hosts
from .password import verifier_for
from .protocol import GuardedHttp

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
    """Whether to serve openly (no key needed); refuses an open non-loopback server, even with
    --no-auth: an open server anyone can reach runs anyone's research on your budget."""
    open_access = no_auth or not has_keys
    if open_access and not is_loopback(host):
        how = "--no-auth was given" if no_auth else "no API keys exist"
        raise UsageError(
            f"{how} and --host {host} is not loopback: anyone who can reach it could run "
            "research (and spend your model budget) here. Serve open servers on 127.0.0.1 "
            "only; to expose one, create a key with `sleuth keys create --org NAME` and/or set "
            "SLEUTH_ACCESS_PASSWORD (docs/serving.md)."
        )
    return open_access


async def _has_keys(settings: Settings) -> bool:
    """Whether any key exists; opening the store migrates it, or refuses (a StoreError) a
    database whose schema is newer than this Sleuth knows, before the server starts."""
    async with Sleuth(settings) as app:
        return await app.service_store.has_keys()


def config_for(options: ServeOptions) -> ServerConfig:
    import asyncio

    resolved = options.resolved
    has_keys = asyncio.run(_has_keys(resolved.settings()))
    values = dict(resolved.values)
    secret = values["access_password"] or None
    # Only the verifier reaches the workers (through the environment) and the app.
    values["access_password"] = verifier_for(secret, sleuth_home(resolved.env)) if secret else None
    return server_config(
        values,
        open_access=access_mode(values["host"], options.no_auth, has_keys or bool(secret)),
        defaults=resolved.given("engine", "run", "session"),
    )


def announce(config: ServerConfig) -> str:
    """The start-up lines: where the API and the UI are, and who may use them."""
    base = f"http://{config.host}:{config.port}"
    mode = "open (no key needed; org 'local')" if config.open_access else "API keys required"
    if config.open_access and not config.access_password:
        ui = f"web UI at {base}/ (open: loopback only)"
    elif config.access_password:
        ui = f"web UI at {base}/ (sign in with SLEUTH_ACCESS_PASSWORD)"
    else:
        ui = (f"web UI at {base}/ is off: this server requires API keys; set "
              "SLEUTH_ACCESS_PASSWORD to sign in to it")  # fmt: skip
    hosts = ", ".join(sorted(allowed_hosts(config.host, config.allowed_hosts)))
    return (
        f"sleuth: Research API on {base}/api (docs /api/docs); access: {mode}\n"
        f"sleuth: {ui}\n"
        f"sleuth: answers to Host: {hosts} (more: --allowed-hosts / SLEUTH_ALLOWED_HOSTS)"
    )


def uvicorn_options(config: ServerConfig) -> dict[str, Any]:
    """How uvicorn serves: our access log, the grace and keep-alive times, X-Forwarded-* never
    believed by uvicorn itself (the app believes them from `trusted_proxies` only), and the
    protocol that bounds unfinished headers and connections per client (`protocol.py`).

    The loop is asyncio's, not uvloop's: under load uvloop took about one new connection per
    loop iteration, so at 200 connections the last ones waited 2-5 s for their first answer
    while the rest were served in 60 ms; asyncio accepts every waiting connection at once
    (bench/results/2026-12-04-service-loop.md)."""
    return {
        "host": config.host,
        "port": config.port,
        "access_log": False,  # our own JSON access log has org, route, cost and request id
        "timeout_graceful_shutdown": GRACE_S,
        "timeout_keep_alive": KEEP_ALIVE_S,
        "proxy_headers": False,
        "http": GuardedHttp,
        "loop": "asyncio",
        "log_level": "info",
    }


def run(options: ServeOptions) -> None:
    config = config_for(options)
    setup_logging()
    GuardedHttp.configure(config)
    print(announce(config), file=sys.stderr, flush=True)
    common = uvicorn_options(config)
    if options.workers == 1:
        app = create_app(config, app=Sleuth(options.resolved.settings()), settle=True)
        uvicorn.run(app, **common)
        return
    os.environ[CONFIG_ENV] = json.dumps(_config_json(config), default=str)
    uvicorn.run("sleuth.server.main:worker_app", factory=True, workers=options.workers, **common)


def worker_app() -> FastAPI:
    """The app of one worker process, from the configuration its parent left in the env."""
    setup_logging()
    data = json.loads(os.environ[CONFIG_ENV])
    data["defaults"] = MappingProxyType(data["defaults"])
    for name in ("allowed_hosts", "trusted_proxies", "allowed_models", "allowed_providers"):
        data[name] = tuple(data[name])
    config = ServerConfig(**data)
    GuardedHttp.configure(config)
    return create_app(config, settle=True)


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
