"""A real `sleuth serve` app on a loopback port in a background thread (uvicorn), with a clock
the test moves, the test web behind it, and keys made in its store."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
import asyncio
import threading
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import uvicorn

from sleuth.app.application import Sleuth
from sleuth.server.app import create_app
from sleuth.server.config import ServerConfig
from sleuth.server.main import uvicorn_options
from sleuth.server.state import State
from sleuth.settings import Settings
from sleuth.store.backend import service_store
from sleuth.store.service import ServiceStore
from sleuth.store.service_sqlite import SqliteServiceStore

START = 1_790_000_000.0  # a fixed moment for the injected clock
TESTWEB_DEFAULTS = {"search": "searxng", "search_fallback": "none", "browser": "never"}


class FakeClock:
    def __init__(self, start: float = START) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Served:
    base: str  # http://127.0.0.1:PORT
    state: State
    clock: FakeClock
    store: ServiceStore

    @property
    def api(self) -> str:
        return self.base + "/api"

    def key(self, org: str, scopes: tuple[str, ...] = ("research", "search", "extract"),
            **quotas: int) -> str:  # fmt: skip
        _, secret = self.call(
            lambda store: store.create_key(org, scopes, now=self.clock(), quotas=quotas)
        )
        return secret

    def call(self, action: Callable[[Any], Awaitable[Any]]) -> Any:
        """`action(store)` from the test's thread. A SQLite store is called directly; a
        PostgreSQL one's pool belongs to the server's event loop, so the test opens its own
        store on the same database (as another replica would)."""
        if isinstance(self.store, SqliteServiceStore):
            return asyncio.run(action(self.store))
        from sleuth.store.service_pg import PgServiceStore

        url = self.store.url  # type: ignore[attr-defined]

        async def run() -> Any:
            other = PgServiceStore(url, self.store.sessions)
            try:
                return await action(other)
            finally:
                await other.aclose()

        return asyncio.run(run())

    def metric(self, name: str, **labels: str) -> float:
        value = self.state.metrics.registry.get_sample_value(name, labels)
        return value or 0.0


@contextmanager
def serving(
    config: ServerConfig | None = None,
    defaults: Mapping[str, Any] | None = None,
    store_type: type[SqliteServiceStore] | None = None,
    protocol: type[asyncio.Protocol] | None = None,
) -> Iterator[Served]:
    """Serve on 127.0.0.1 (a free port) until the block ends, as `sleuth serve` does (its
    uvicorn options and protocol): on SQLite, or on the PostgreSQL database of
    SLEUTH_DATABASE_URL when the test set one (the `service_backend` fixture)."""
    config = config or ServerConfig()
    if defaults is not None or not config.defaults:
        config = ServerConfig(**{**_fields(config), "defaults": dict(defaults or TESTWEB_DEFAULTS)})
    clock = FakeClock()
    sleuth = Sleuth(Settings.from_env())
    if store_type is not None:
        store: ServiceStore = store_type(sleuth.home, sleuth.sessions)
    else:
        store = service_store(sleuth.home, sleuth.sessions, sleuth.database_url)
    api = create_app(config, app=sleuth, store=store, clock=clock)
    options = {**uvicorn_options(config), "host": "127.0.0.1", "port": 0, "log_level": "warning"}
    if protocol is not None:  # the production protocol with other bounds (tests/server/test_slow)
        options["http"] = protocol
    server = uvicorn.Server(uvicorn.Config(api, **options))
    thread = threading.Thread(target=server.run, name="sleuth-serve", daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the server did not start")
        threading.Event().wait(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield Served(f"http://127.0.0.1:{port}", api.state.sleuth, clock, store)
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def _fields(config: ServerConfig) -> dict[str, Any]:
    from dataclasses import fields

    return {f.name: getattr(config, f.name) for f in fields(config)}
