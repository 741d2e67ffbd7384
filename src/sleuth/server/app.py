"""The ASGI app: `create_app(config)` wires the application (`Sleuth`), the service store, the
routes each behind its guard (`guards.py`), the web UI at `/` (`ui/`), the edge every request
passes (`edge.py`: Host allow-list, no requests from other sites), the error shape, request ids
and access logs, metrics, and the interactive docs served from the package (Swagger UI from
`fastapi-offline`: no CDN, no validator badge)."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from importlib.metadata import version
from typing import TYPE_CHECKING

from fastapi import Depends, FastAPI
from fastapi_offline import FastAPIOffline
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from ..app.application import Sleuth
from ..app.service import Service
from ..settings.resolve import resolve
from . import errors, guards, password
from .access import Access
from .auth import principal
from .bodylimit import BodyLimit
from .config import Clock, ServerConfig, server_config, wall_clock
from .edge import EdgeCheck, allowed_hosts
from .logins import Logins
from .mcp import http as mcp_http
from .metrics import Metrics
from .observe import RequestLog
from .routes import (
    batches,
    evidence,
    graph,
    kb,
    lookup,
    meta,
    openai_compat,
    research,
    webapp,
)
from .state import State
from .throttle import Throttle
from .tickets import Tickets
from .ui import routes as ui_routes
from .ui import shell as ui_shell
from .ui.context import UiContext
from .ui.saved import SavedSettings

if TYPE_CHECKING:
    from ..store.service import ServiceStore

DESCRIPTION = """Sleuth as a service: research (a cited answer whose every citation was checked
in code), search and extract, for the organization of the API key (`X-API-Key` or
`Authorization: Bearer`). Errors are `{"success": false, "error", "code", "retryable"}`."""


def settle_heap() -> None:
    """Move everything alive once the server is built (modules, routes, models: most of the
    heap, and it lives as long as the process) out of the garbage collector's reach. A full
    collection then walks only what requests made since: under the 200-connection mix its
    pauses went from ~135 ms to ~15 ms, and each one stalls every request in flight."""
    gc.collect()
    gc.freeze()


def create_app(
    config: ServerConfig | None = None,
    *,
    app: Sleuth | None = None,
    store: ServiceStore | None = None,
    clock: Clock = wall_clock,
    settle: bool = False,
) -> FastAPI:
    """The server's app. `settle`: the process serves only this app (`sleuth serve`), so its
    heap is settled once it has started (`settle_heap`); not in a process hosting others."""
    if config is None or app is None:  # resolved as every face resolves them
        resolved = resolve()
        defaults = resolved.given("engine", "run", "session")
        config = config or server_config(resolved.values, open_access=False, defaults=defaults)
        app = app or Sleuth(resolved.settings(), service_store=store)
    sleuth = app
    store = store or sleuth.service_store
    if config.access_password:  # from here on only the verifier is kept (password.py)
        hashed = password.verifier_for(config.access_password, sleuth.home)
        config = replace(config, access_password=hashed)
    metrics = Metrics()
    service = Service(sleuth, store, config.policy, defaults=config.defaults, clock=clock,
                      observer=metrics, secret_key=config.secret_key)  # fmt: skip
    state = State(config, sleuth, store, clock, metrics, service)
    metrics.watch(service.running, service.pending)

    @asynccontextmanager
    async def lifespan(api: FastAPI) -> AsyncIterator[None]:
        if settle:
            settle_heap()
        try:
            async with serving_mcp():
                yield
        finally:  # runs still going have lost their clients: cancel them, then close
            await state.service.aclose()
            await state.batches.aclose()
            await sleuth.aclose()
            await store.aclose()

    api = FastAPIOffline(
        title="Sleuth Research API",
        version=version("sleuth"),
        description=DESCRIPTION,
        docs_url="/api/docs",
        redoc_url=None,
        openapi_url="/api/openapi.json",
        static_url="/api/docs/static",
        swagger_ui_parameters={"validatorUrl": None},
        lifespan=lifespan,
    )
    api.state.sleuth = state
    api.state.ui = UiContext(state, SavedSettings(sleuth.ui_text))
    api.state.access = _access(config, sleuth, clock)
    _routes(api)
    serving_mcp = mcp_http.mount(api, state)
    guards.verify(api)  # every route has a guard, or is listed in guards.PUBLIC
    errors.install(api)
    guards.install(api)
    api.add_middleware(BodyLimit, max_bytes=config.max_body_bytes)
    api.add_middleware(EdgeCheck, hosts=allowed_hosts(config.host, config.allowed_hosts))
    if config.trusted_proxies:  # X-Forwarded-Proto/-For believed from these addresses only
        api.add_middleware(ProxyHeadersMiddleware, trusted_hosts=list(config.trusted_proxies))
    api.add_middleware(RequestLog, metrics=metrics)  # added last: outermost, sees every answer
    return api


def _routes(api: FastAPI) -> None:
    """Each router behind its guard (`guards.py`); the public ones are listed in
    `guards.PUBLIC`, which `guards.verify` holds them to."""
    for module in (meta, research, lookup, kb, batches, graph, evidence, openai_compat):
        api.include_router(module.router, dependencies=[Depends(principal)])
    api.include_router(webapp.router, dependencies=[Depends(guards.research)])
    api.include_router(webapp.live, dependencies=[Depends(guards.ticket)])
    api.include_router(meta.ops, dependencies=[Depends(guards.operator)])
    api.include_router(meta.probes)  # public
    api.include_router(ui_shell.router)  # public: login, logout, assets, PWA files
    api.include_router(ui_routes.router, dependencies=[Depends(guards.ui)])  # the web UI at /


def _access(config: ServerConfig, sleuth: Sleuth, clock: Clock) -> Access:
    """The password's verifier, login sessions, the login throttle and the SSE tickets."""
    verifier = password.parse(config.access_password) if config.access_password else None
    return Access(verifier, Logins(sleuth.home, clock), Throttle(clock),
                  Tickets(config.ticket_secret, clock))  # fmt: skip
