"""Clarifying questions before a steered run: at most three, and none without a model (a
heuristic that guesses at what a person meant would only get in the way)."""

from __future__ import annotations

from typing import Protocol

from ..llm.complete import complete
from ..llm.parse import parse_list
from ..pipeline.write.defuse import defused
from ..ports import ChatModel
from ..prompts import instructions, load

MAX_QUESTIONS = 3


class Clarifier(Protocol):
    async def clarify(self, question: str) -> list[str]: ...


class NoClarifier:
    async def clarify(self, question: str) -> list[str]:
        return []


class ModelClarifier:
    def __init__(self, model: ChatModel, task: str = "") -> None:
        self.model = model
        self.task = task  # a requester's own instructions for the questions, else Sleuth's

    async def clarify(self, question: str) -> list[str]:
        task = instructions("clarify_task", defused(self.task))
        reply = await complete(
            self.model, load("clarify").format(task=task, question=question), 300
        )
        asked = [" ".join(q.split())[:200] for q in parse_list(reply)]
        return list(dict.fromkeys(q for q in asked if q))[:MAX_QUESTIONS]
