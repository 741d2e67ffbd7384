"""Drive a writer: emit its deltas (and its model's reasoning, apart) as events and make sure a
run with sources has an answer."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from ...events import Emit, Notice, WriterDelta, WriterReasoning, WriterStarted
from ...ports import Reasoning, Writer, WriteTask
from ..answer import clean
from .extractive import ExtractiveWriter


@dataclass(frozen=True, slots=True)
class WriteOutcome:
    text: str = ""
    writer: str = ""
    model_ms: int = 0


async def write_answer(
    writer: Writer, task: WriteTask, emit: Emit, round_no: int = 1
) -> WriteOutcome:
    """The writer's answer; asked once more if empty, then the extractive writer's."""
    emit(WriterStarted(writer.name, task.sources, round_no))
    started = time.monotonic()
    text = await _stream(writer, task, emit)
    if not _has_answer(text) and writer.name != "extractive":
        # Ask once more: answer from the sources, or say in one sentence they do not contain it.
        emit(Notice(f"the {writer.name} writer returned no answer; asking once more"))
        text = await _stream(writer, replace(task, insist=True), emit)
    model_ms = int((time.monotonic() - started) * 1000)
    if _has_answer(text):
        return WriteOutcome(text, writer.name, model_ms)
    # A run that found sources never returns an empty answer.
    emit(Notice(f"the {writer.name} writer returned no answer; using the extractive writer"))
    fallback = ExtractiveWriter()
    return WriteOutcome(await _stream(fallback, task, lambda e: None), fallback.name, model_ms)


def _has_answer(text: str) -> bool:
    return bool(clean(text)[0].strip())


async def _stream(writer: Writer, task: WriteTask, emit: Emit) -> str:
    parts: list[str] = []
    async for chunk in writer.write(task):
        if isinstance(chunk, Reasoning):
            emit(WriterReasoning(chunk.text))
            continue
        parts.append(chunk)
        emit(WriterDelta(chunk))
    return "".join(parts)
