"""Drive a writer: stream its deltas as events and make sure a run with sources has an answer."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..answer import clean
from ..errors import DeadlineExceeded
from ..events import Event, Notice, WriterDelta, WriterStarted
from ..ports import Writer, WriteTask
from ..types import ResearchRequest, Source
from .extractive import ExtractiveWriter

if TYPE_CHECKING:
    from ..engine import Deadline


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
) -> AsyncIterator[Event]:
    task = WriteTask(
        request.question.strip(), tuple(sources), request.output_kind, request.language
    )
    yield WriterStarted(writer.name, tuple(sources))
    started = time.monotonic()
    parts: list[str] = []
    stream = writer.write(task)
    try:
        while True:
            left = deadline.remaining()
            if left is not None and left <= 0:
                raise DeadlineExceeded(
                    f"stopped at the --max-runtime limit of {deadline.seconds:g} s"
                )
            try:
                chunk = await deadline.run(anext(stream))
            except StopAsyncIteration:
                break
            parts.append(chunk)
            yield WriterDelta(chunk)
    finally:
        close = getattr(stream, "aclose", None)
        if close is not None:
            await close()
    outcome.model_ms = int((time.monotonic() - started) * 1000)
    outcome.text, outcome.writer = "".join(parts), writer.name
    if not clean(outcome.text)[0].strip():
        # A run that found sources never returns an empty answer.
        yield Notice(f"the {writer.name} writer returned no answer; using the extractive writer")
        fallback = ExtractiveWriter()
        outcome.text = "".join([c async for c in fallback.write(task)])
        outcome.writer = fallback.name
