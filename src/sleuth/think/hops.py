"""Two-step questions: triage, then a bridge entity taken only from pages already read.

"Who co-founded the company that develops V8?" needs the company first. Triage runs while the
first search does; if the question is two-step, the bridge (here, the company) is named from the
read sources — a name the sources do not contain is never used — and the remaining question is
searched with the name filled in.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from ..llm.complete import complete
from ..llm.parse import parse_object
from ..ports import ChatModel
from ..prompts import load
from ..text import content_tokens
from ..types import Source
from .plan import bridge_entity

# "the company that develops V8", "the author whose novel ...", "of the band which ..."
RELATIVE = re.compile(
    r"\b(?:the|a|an)\s+((?:(?!(?:of|in|on|at|the|a|an)\b)[\w'-]+\s+){0,2}[\w'-]+)"
    r"\s+(?:that|which|who|whose|where)\s+(.+?)(?=[?.!]?$)",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Triage:
    kind: Literal["single", "multi_hop"]
    first: str = ""  # a search that finds the intermediate thing
    then: str = ""  # the remaining question, with {entity} where its name goes

    def fill(self, entity: str) -> str:
        return (
            self.then.replace("{entity}", entity)
            if "{entity}" in self.then
            else (f"{entity} {self.then}".strip())
        )


SINGLE = Triage("single")


class Hopper(Protocol):
    async def triage(self, question: str) -> Triage: ...

    async def bridge(
        self, question: str, triage: Triage, sources: Sequence[Source]
    ) -> str | None: ...


class HeuristicHopper:
    """A relative clause marks a two-step question; the bridge is the most frequent title-case
    phrase shared by the top passages that the question does not already contain."""

    async def triage(self, question: str) -> Triage:
        return heuristic_triage(question)

    async def bridge(self, question: str, triage: Triage, sources: Sequence[Source]) -> str | None:
        return bridge_entity(question, sources, description=triage.first)


def heuristic_triage(question: str) -> Triage:
    match = RELATIVE.search(question.strip())
    if match is None:
        return SINGLE
    description = match.group(0)
    then = question.replace(description, "{entity}", 1).strip()
    if not content_tokens(then.replace("{entity}", "")):  # nothing asked beyond the entity
        return SINGLE
    return Triage("multi_hop", first=description, then=then)


class ModelHopper:
    def __init__(self, model: ChatModel) -> None:
        self.model = model

    async def triage(self, question: str) -> Triage:
        reply = await complete(self.model, load("triage").format(question=question), 200)
        data = parse_object(reply)
        if data is None or data.get("type") != "multi_hop":
            return SINGLE
        first, then = str(data.get("first") or "").strip(), str(data.get("then") or "").strip()
        return Triage("multi_hop", first, then) if first and then else SINGLE

    async def bridge(self, question: str, triage: Triage, sources: Sequence[Source]) -> str | None:
        blocks = "\n".join(
            f"[{s.number}] {s.title}: " + " … ".join(p.text for p in s.passages) for s in sources
        )
        answer = await complete(
            self.model, load("bridge").format(question=triage.first, sources=blocks), 40
        )
        name = answer.strip().strip("\"'.").splitlines()[0].strip() if answer.strip() else ""
        return name if name and name.upper() != "NONE" and named_in(name, sources) else None


def named_in(name: str, sources: Sequence[Source]) -> bool:
    """True only when the sources themselves contain the name (never the model's memory)."""
    needle = name.lower()
    return any(
        needle in (s.text or "").lower()
        or needle in s.title.lower()
        or any(needle in p.text.lower() for p in s.passages)
        for s in sources
    )
