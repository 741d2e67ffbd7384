"""What a running server holds: its configuration, the application, the store, the clock,
the metrics, the research service and the live runs streams follow. One per app, reached
from a request."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fastapi import Request

from ..store.service import ServiceStore
from .batches import Batches
from .config import Clock, ServerConfig
from .live import LiveRuns
from .metrics import Metrics

if TYPE_CHECKING:
    from ..app.application import Sleuth
    from .research import Research


@dataclass(slots=True)
class State:
    config: ServerConfig
    app: Sleuth
    store: ServiceStore
    clock: Clock
    metrics: Metrics
    research: Research
    live: LiveRuns = field(init=False)
    batches: Batches = field(init=False)

    def __post_init__(self) -> None:
        self.live = LiveRuns(self)
        self.batches = Batches.from_env(self.app.settings.env)


def state_of(request: Request) -> State:
    state: State = request.app.state.sleuth
    return state
