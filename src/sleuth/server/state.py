"""What a running server holds: its configuration, the application, the service (every use
case a caller reaches), the store, the clock and the metrics. One per app, reached from a
request."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fastapi import Request

from ..app.batches import Batches
from ..app.service import Service
from .config import Clock, ServerConfig
from .metrics import Metrics

if TYPE_CHECKING:
    from ..app.application import Sleuth
    from ..store.service import ServiceStore


@dataclass(slots=True)
class State:
    config: ServerConfig
    app: Sleuth
    store: ServiceStore
    clock: Clock
    metrics: Metrics
    service: Service
    batches: Batches = field(init=False)

    def __post_init__(self) -> None:
        self.batches = Batches(self.app.database_url)


def state_of(request: Request) -> State:
    state: State = request.app.state.sleuth
    return state


async def server_state(request: Request) -> State:
    """`state_of` as a dependency: async, so FastAPI does not hand it to a thread pool (a
    thread hop on every request, measured at about a millisecond under load)."""
    return state_of(request)
