"""Long stages (a round of search and reading, the writing, a re-run) as the page sees them:
work the service admits, runs and logs (`app/service.py`), started for the UI's caller and
followed by the page as server-sent events.

The page reads the run's events from any index (it reconnects with the last id it saw), then
one outcome event: `stage` (the saved session to open next), `failed` (the error in words) or
`cancelled`. Cancelling cancels the run and everything it started; the stage before it stays
saved as it was."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from sse_starlette import ServerSentEvent

from ...app.admission import Tally
from ...app.runs import Run
from ...app.steer import Steering
from ...events import Done, Event, Failed
from ..stream import sse
from .context import UiContext

OnEvent = Callable[[Event], None]
StageWork = Callable[[OnEvent], Awaitable[Steering]]


def start(ui: UiContext, work: StageWork) -> Run:
    """Start a stage as the UI's caller (a run slot, metered, in the metrics)."""

    async def admitted(emit: OnEvent, tally: Tally) -> Steering:
        return await work(lambda event: None if isinstance(event, Done | Failed) else emit(event))

    return ui.state.service.start(ui.caller, "steer", admitted)


def outcome(run: Run) -> dict[str, Any]:
    """How a finished run ended, as the page's last event."""
    if run.admitted.done() and not run.admitted.cancelled() and run.admitted.exception():
        return {"type": "failed", "error": str(run.admitted.exception())}
    failed = next((e for e in reversed(run.log.events) if isinstance(e, Failed)), None)
    if failed is not None:
        return {"type": "failed", "error": failed.error}
    if isinstance(run.value, Steering):
        return {"type": "stage", "stage": run.value.stage,
                "url": f"/runs/{run.value.session_id}"}  # fmt: skip
    return {"type": "cancelled"}


async def framed(run: Run, first: int) -> AsyncIterator[ServerSentEvent]:
    """The run's events from index `first`, then its outcome."""
    async for index, event in run.log.read(first):
        if not isinstance(event, Failed):
            yield sse(event.kind, event.to_json(), str(index))
    if run.task is not None:
        await _settled(run)
    end = outcome(run)
    yield sse(str(end["type"]), end, str(len(run.log.events)))


async def _settled(run: Run) -> None:
    """Wait for the run's task (its value is set just before it ends)."""
    import asyncio

    assert run.task is not None
    await asyncio.gather(asyncio.shield(run.task), return_exceptions=True)
