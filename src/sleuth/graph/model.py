"""What a knowledge graph is: entities, the edges between them, and for every edge the cited
sentence(s) that support it. Built only from the passages of the sources an answer cites."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from ..types import Result, Source

EntityKind = Literal["name", "date", "quantity"]
Method = Literal["llm", "cooccurrence"]


@dataclass(frozen=True, slots=True)
class Entity:
    id: str  # "e1", "e2"...: the most named first (co-occurrence), else in order of appearance
    label: str
    kind: EntityKind = "name"
    mentions: int = 0  # cited sentences that name it

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "label": self.label, "kind": self.kind, "mentions": self.mentions}


@dataclass(frozen=True, slots=True)
class Evidence:
    """One cited sentence that supports an edge: the citation number and the sentence."""

    citation: int
    sentence: str
    url: str = ""


@dataclass(frozen=True, slots=True)
class Edge:
    source: str  # entity ids
    target: str
    relation: str
    evidence: tuple[Evidence, ...]  # at least one; the first is the one shown
    directed: bool = False  # model-extracted relations read source -> target

    @property
    def citations(self) -> tuple[int, ...]:
        return tuple(sorted({e.citation for e in self.evidence}))

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "target": self.target,
            "relation": self.relation,
            "directed": self.directed,
            "citations": list(self.citations),
            "evidence": [
                {"citation": e.citation, "sentence": e.sentence, "url": e.url}
                for e in self.evidence
            ],
        }


@dataclass(frozen=True, slots=True)
class KnowledgeGraph:
    question: str
    method: Method
    entities: tuple[Entity, ...] = ()
    edges: tuple[Edge, ...] = ()
    session_id: str | None = None
    notes: tuple[str, ...] = ()  # what a reader should know: dropped relations, a fallback

    @property
    def empty(self) -> bool:
        return not self.edges

    def entity(self, entity_id: str) -> Entity:
        return next(e for e in self.entities if e.id == entity_id)

    def to_json(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "question": self.question,
            "method": self.method,
            "entities": [e.to_json() for e in self.entities],
            "edges": [e.to_json() for e in self.edges],
            "notes": list(self.notes),
        }


@dataclass(frozen=True, slots=True)
class CitedText:
    """The passages of one cited source, the only text a graph may be drawn from."""

    number: int
    url: str
    title: str
    passages: tuple[str, ...]


def cited_texts(result: Result) -> list[CitedText]:
    """The cited sources' passages in citation-number order; a source saved without passages
    contributes its citation quote."""
    by_number: dict[int, Source] = {s.number: s for s in result.sources}
    out: list[CitedText] = []
    for citation in sorted(result.citations, key=lambda c: c.number):
        source = by_number.get(citation.number)
        texts = [p.text for p in source.passages] if source is not None else []
        texts = [t for t in texts if t.strip()] or ([citation.quote] if citation.quote else [])
        if texts:
            out.append(CitedText(citation.number, citation.url, citation.title, tuple(texts)))
    return out


_SPACE = re.compile(r"\s+")


def norm(text: str) -> str:
    """Case and spacing folded: how names are compared."""
    return _SPACE.sub(" ", text).strip().casefold()


def mentions(name: str, text: str) -> bool:
    """`name` occurs in `text` as whole words (case and spacing ignored)."""
    key = norm(name)
    if not key:
        return False
    return re.search(rf"(?<!\w){re.escape(key)}(?!\w)", norm(text)) is not None
