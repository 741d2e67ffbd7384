"""Long stages (a round of search and reading, the writing) run as jobs the page watches.

A job keeps every event it produced, so a page that connects late (or reconnects) sees the
whole run; it ends with one outcome event: `stage` (the saved session to open next), `failed`
(the error in words) or `cancelled`. Cancelling a job cancels its run and everything the run
started; the stage before it stays saved as it was."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ...app.steer import Steering
from ...errors import SleuthError
from ...events import Done, Event, Failed

OnEvent = Callable[[Event], None]
Work = Callable[[OnEvent], Awaitable[Steering]]
KEEP = 64  # finished jobs remembered for late watchers


@dataclass(slots=True)
class Job:
    id: str
    events: list[dict[str, Any]] = field(default_factory=list)
    done: bool = False
    task: asyncio.Task[None] | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def push(self, data: dict[str, Any]) -> None:
        self.events.append(data)
        self.changed.set()

    def on_event(self, event: Event) -> None:
        if not isinstance(event, Done | Failed):
            self.push(event.to_json())

    def finish(self, data: dict[str, Any]) -> None:
        if not self.done:
            self.done = True
            self.push(data)

    async def follow(self, start: int = 0) -> AsyncIterator[tuple[int, dict[str, Any]]]:
        """Every event from `start` on, as it comes, until the outcome."""
        index = start
        while True:
            self.changed.clear()
            while index < len(self.events):
                yield index, self.events[index]
                index += 1
            if self.done:
                return
            await self.changed.wait()


class Jobs:
    def __init__(self) -> None:
        self._jobs: dict[str, Job] = {}

    def get(self, job_id: str) -> Job | None:
        return self._jobs.get(job_id)

    def start(self, work: Work) -> Job:
        job = Job(secrets.token_urlsafe(12))
        job.task = asyncio.create_task(self._run(job, work), name=f"ui-job-{job.id}")
        self._jobs[job.id] = job
        self._forget_old()
        return job

    async def _run(self, job: Job, work: Work) -> None:
        try:
            steering = await work(job.on_event)
        except SleuthError as exc:
            job.finish({"type": "failed", "error": str(exc)})
        except asyncio.CancelledError:
            job.finish({"type": "cancelled"})
        else:
            job.finish({"type": "stage", "stage": steering.stage,
                        "url": f"/runs/{steering.session_id}"})  # fmt: skip

    def cancel(self, job_id: str) -> bool:
        job = self._jobs.get(job_id)
        if job is None or job.done or job.task is None:
            return False
        job.task.cancel()
        return True

    def _forget_old(self) -> None:
        finished = [k for k, j in self._jobs.items() if j.done]
        for key in finished[: max(0, len(finished) - KEEP)]:
            del self._jobs[key]

    async def aclose(self) -> None:
        tasks = [j.task for j in self._jobs.values() if j.task is not None and not j.done]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
