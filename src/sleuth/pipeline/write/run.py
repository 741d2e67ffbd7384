"""Drive a writer: stream its deltas as events and make sure a run with sources has an answer."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ...events import Event, Notice, WriterDelta, WriterStarted
from ...ports import Writer, WriteTask
from ...types import ResearchRequest, Source
from ..answer import clean
from .extractive import ExtractiveWriter

if TYPE_CHECKING:
    from ...deadline import Deadline


@dataclass(slots=True)
class WriteOutcome:
    text: str = ""
    writer: str = ""
    model_ms: int = 0


async def write_answer(
    writer: Writer,
    request: ResearchRequest,
    sources: Sequence[Source],
    deadline: Deadline,
    outcome: WriteOutcome,
    aspects: tuple[str, ...] = (),
    round_no: int = 1,
) -> AsyncIterator[Event]:
    task = WriteTask(
        request.question.strip(),
        tuple(sources),
        request.output_kind,
        request.language,
        aspects,
        request.tldr,
    )
    yield WriterStarted(writer.name, tuple(sources), round_no)
    started = time.monotonic()
    parts: list[str] = []
    async for event in _stream(writer, task, deadline, parts):
        yield event
    if not clean("".join(parts))[0].strip() and writer.name != "extractive":
        # Ask once more: answer from the sources, or say in one sentence they do not contain it.
        yield Notice(f"the {writer.name} writer returned no answer; asking once more")
        parts = []
        async for event in _stream(writer, replace(task, insist=True), deadline, parts):
            yield event
    outcome.model_ms = int((time.monotonic() - started) * 1000)
    outcome.text, outcome.writer = "".join(parts), writer.name
    if not clean(outcome.text)[0].strip():
        # A run that found sources never returns an empty answer.
        yield Notice(f"the {writer.name} writer returned no answer; using the extractive writer")
        fallback = ExtractiveWriter()
        outcome.text = "".join([c async for c in fallback.write(task)])
        outcome.writer = fallback.name


async def _stream(
    writer: Writer, task: WriteTask, deadline: Deadline, parts: list[str]
) -> AsyncIterator[Event]:
    async for chunk in deadline.guard_text(writer.write(task)):
        parts.append(chunk)
        yield WriterDelta(chunk)
