"""What the UI keeps per server: its jobs and the settings saved from its Settings page, and
the values each UI run gets (the operator's defaults, then the saved settings)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fastapi import Request

from ...errors import NotFoundError
from ...store.records import SessionRecord
from ..config import OPEN_ORG
from ..state import State
from .jobs import Jobs
from .saved import SavedSettings


@dataclass(slots=True)
class UiContext:
    state: State
    saved: SavedSettings
    jobs: Jobs = field(default_factory=Jobs)

    def values(self) -> dict[str, Any]:
        return {**self.state.config.defaults, **self.saved.values()}

    def record(self, session_id: str) -> SessionRecord:
        """A session the UI may show: a local run or one of the organization `local`."""
        record = self.state.app.sessions.get(session_id)
        if record.org not in (None, OPEN_ORG):
            raise NotFoundError(f"no run {session_id!r}")
        return record

    async def aclose(self) -> None:
        await self.jobs.aclose()


def ui_of(request: Request) -> UiContext:
    ui: UiContext = request.app.state.ui
    return ui
