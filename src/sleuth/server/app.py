"""The ASGI app: `create_app(config)` wires the application (`Sleuth`), the service store, the
routes, the web UI at `/` (`ui/`), the error shape, request ids and access logs, metrics, and
the interactive docs served from the package (Swagger UI from `fastapi-offline`: no CDN, no
validator badge)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.metadata import version
from typing import TYPE_CHECKING

from fastapi import FastAPI
from fastapi_offline import FastAPIOffline

from ..app.application import Sleuth
from ..app.service import Service
from ..settings.resolve import resolve
from . import errors
from .bodylimit import BodyLimit
from .config import Clock, ServerConfig, server_config, wall_clock
from .mcp import http as mcp_http
from .metrics import Metrics
from .observe import RequestLog
from .routes import batches, graph, kb, lookup, meta, research, webapp
from .state import State
from .ui import routes as ui_routes
from .ui.context import UiContext
from .ui.gate import PasswordGate
from .ui.saved import SavedSettings

if TYPE_CHECKING:
    from ..store.service import ServiceStore

DESCRIPTION = """Sleuth as a service: research (a cited answer whose every citation was checked
in code), search and extract, for the organization of the API key (`X-API-Key` or
`Authorization: Bearer`). Errors are `{"success": false, "error", "code", "retryable"}`."""


def create_app(
    config: ServerConfig | None = None,
    *,
    app: Sleuth | None = None,
    store: ServiceStore | None = None,
    clock: Clock = wall_clock,
) -> FastAPI:
    if config is None or app is None:  # resolved as every face resolves them
        resolved = resolve()
        defaults = resolved.given("engine", "run", "session")
        config = config or server_config(resolved.values, open_access=False, defaults=defaults)
        app = app or Sleuth(resolved.settings(), service_store=store)
    sleuth = app
    store = store or sleuth.service_store
    metrics = Metrics()
    service = Service(
        sleuth, store, config.policy, defaults=config.defaults, clock=clock, observer=metrics
    )
    state = State(config, sleuth, store, clock, metrics, service)
    metrics.watch(service.running, service.pending)

    @asynccontextmanager
    async def lifespan(api: FastAPI) -> AsyncIterator[None]:
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
    api.state.ui = UiContext(state, SavedSettings(sleuth.home))
    for module in (meta, research, lookup, kb, batches, webapp, graph):
        api.include_router(module.router)
    api.include_router(ui_routes.router)  # the web UI at /
    serving_mcp = mcp_http.mount(api, state)
    errors.install(api)
    api.add_middleware(BodyLimit, max_bytes=config.max_body_bytes)
    api.add_middleware(PasswordGate, password=config.access_password)
    api.add_middleware(RequestLog, metrics=metrics)  # added last: outermost, sees every answer
    return api
