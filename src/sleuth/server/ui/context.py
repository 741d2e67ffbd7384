"""What the UI keeps per server: the settings saved from its Settings page, who it acts for
(its `Caller`), and the values each UI run gets (the operator's defaults, then the saved
settings)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fastapi import Request

from ...app.caller import LOCAL_ORG, Caller
from ...errors import NotFoundError
from ..state import State
from .saved import SavedSettings

if TYPE_CHECKING:
    from ...store.records import SessionRecord


@dataclass(slots=True)
class UiContext:
    state: State
    saved: SavedSettings

    @property
    def caller(self) -> Caller:
        """The UI acts for the operator: the organization `local`, whose knowledge bases and
        sessions it shows, admitted and metered like any other caller."""
        if self.state.config.access_password:
            return Caller(LOCAL_ORG, how="password")
        return Caller(LOCAL_ORG, how="open")

    def values(self) -> dict[str, Any]:
        """Setting values for a UI run: the operator's defaults, then the saved settings,
        searching the operator's own knowledge bases."""
        return self.state.service.values(self.caller, self.saved.values())

    def record(self, session_id: str) -> SessionRecord:
        """A session the UI may show: a local run or one of the organization `local`."""
        record = self.state.app.sessions.get(session_id)
        if record.org not in (None, LOCAL_ORG):
            raise NotFoundError(f"no run {session_id!r}")
        return record


def ui_of(request: Request) -> UiContext:
    ui: UiContext = request.app.state.ui
    return ui
