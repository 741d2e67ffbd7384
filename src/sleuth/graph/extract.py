"""The graph from a model: relations the model reads from the cited passages, then checked in
code. Model output is untrusted: a relation survives only for a citation whose passages name
both of its entities in one sentence (or in two sentences side by side), and that sentence is
the edge's evidence. Everything else is dropped and counted in the graph's notes.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, replace
from typing import Any

from ..llm.complete import complete
from ..llm.parse import parse_object
from ..ports import ChatModel
from ..prompts import load
from ..types import Result
from .entities import sentences
from .model import (
    CitedText,
    Edge,
    Entity,
    EntityKind,
    Evidence,
    KnowledgeGraph,
    cited_texts,
    mentions,
    norm,
)

MAX_RELATIONS = 25
MAX_NAME_CHARS = 80
MAX_RELATION_CHARS = 60
PROMPT_BUDGET_CHARS = 12_000
REPLY_TOKENS = 1500
_DATE_LIKE = re.compile(r"^(?:\d{4}(?:-\d{2}(?:-\d{2})?)?|[A-Z][a-z]+\.? \d{1,2},? \d{4})$")
_QUANTITY_LIKE = re.compile(r"^[$€£¥]?\s?\d[\d,.]*\s?(?:%|\w+)?$")


@dataclass(frozen=True, slots=True)
class Claim:
    """One relation as the model stated it, before it is checked."""

    source: str
    target: str
    relation: str
    citations: tuple[int, ...]


async def llm_graph(
    model: ChatModel, result: Result, question: str | None = None
) -> KnowledgeGraph:
    """Ask the model for relations among the cited passages and keep the supported ones."""
    asked = question if question is not None else result.query
    texts = cited_texts(result)
    if not texts:
        return KnowledgeGraph(asked, "llm", session_id=result.session_id)
    prompt = load("graph").format(
        question=asked, sources=_sources(result, texts), limit=MAX_RELATIONS
    )
    claims = parse_claims(await complete(model, prompt, REPLY_TOKENS))
    return checked_graph(claims, texts, asked, result.session_id)


def _sources(result: Result, texts: list[CitedText]) -> str:
    from ..pipeline.write.llm import format_sources

    cited = {t.number for t in texts}
    return format_sources([s for s in result.sources if s.number in cited], PROMPT_BUDGET_CHARS)


def parse_claims(reply: str) -> list[Claim]:
    """The relations in a reply, in any of the shapes models use; [] for anything else."""
    data = parse_object(reply)
    if data is None:
        return []
    items: Any = next((data[k] for k in ("relations", "edges", "triples") if k in data), [])
    if not isinstance(items, list):
        return []
    claims = [c for c in (_claim(item) for item in items[: MAX_RELATIONS * 2]) if c is not None]
    return claims[:MAX_RELATIONS]


def _claim(item: Any) -> Claim | None:
    if not isinstance(item, dict):
        return None
    source = _name(item.get("source") or item.get("subject") or item.get("from"))
    target = _name(item.get("target") or item.get("object") or item.get("to"))
    if not source or not target or norm(source) == norm(target):
        return None
    relation = _name(item.get("relation") or item.get("predicate"), MAX_RELATION_CHARS)
    raw = item.get("citations", item.get("citation", []))
    numbers = raw if isinstance(raw, list) else [raw]
    cites = tuple(
        dict.fromkeys(n for n in numbers if isinstance(n, int) and not isinstance(n, bool))
    )
    return Claim(source, target, relation or "related to", cites) if cites else None


def _name(value: Any, limit: int = MAX_NAME_CHARS) -> str:
    if not isinstance(value, str):
        return ""
    text = " ".join(value.split()).strip("\"'`“”‘’ ")
    return text if len(text) <= limit else ""


def checked_graph(
    claims: list[Claim], texts: list[CitedText], question: str, session_id: str | None
) -> KnowledgeGraph:
    """The claims that the cited passages support, as a graph; the rest counted in a note."""
    by_number = {t.number: t for t in texts}
    ids: dict[str, Entity] = {}
    edges: dict[tuple[str, str, str], Edge] = {}
    dropped = 0
    for claim in claims:
        evidence = _support(claim, by_number)
        if not evidence:
            dropped += 1
            continue
        a, b = _entity(ids, claim.source), _entity(ids, claim.target)
        key = (a.id, b.id, norm(claim.relation))
        if key not in edges:
            edges[key] = Edge(a.id, b.id, claim.relation, evidence, directed=True)
    notes = (f"{dropped} relation(s) the model gave were dropped: the cited passages do not "
             "name both entities together",) if dropped else ()  # fmt: skip
    used = {e.source for e in edges.values()} | {e.target for e in edges.values()}
    said = [s for t in texts for p in t.passages for s in sentences(p)]
    entities = tuple(
        replace(e, mentions=sum(mentions(e.label, s) for s in said))
        for e in ids.values()
        if e.id in used
    )
    return KnowledgeGraph(question, "llm", entities, tuple(edges.values()), session_id, notes)


def _support(claim: Claim, by_number: dict[int, CitedText]) -> tuple[Evidence, ...]:
    """For each cited number, the first sentence (or adjacent pair) naming both entities."""
    found: list[Evidence] = []
    for number in claim.citations:
        text = by_number.get(number)
        sentence = _sentence_with(claim.source, claim.target, text) if text else None
        if text is not None and sentence is not None:
            found.append(Evidence(number, sentence, text.url))
    return tuple(found)


def _sentence_with(a: str, b: str, text: CitedText) -> str | None:
    for passage in text.passages:
        parts = sentences(passage)
        for sentence in parts:
            if mentions(a, sentence) and mentions(b, sentence):
                return sentence
        for first, second in itertools.pairwise(parts):
            pair = f"{first} {second}"
            if mentions(a, pair) and mentions(b, pair):
                return pair
    return None


def _entity(ids: dict[str, Entity], name: str) -> Entity:
    key = norm(name)
    if key not in ids:
        ids[key] = Entity(f"e{len(ids) + 1}", name, _kind(name))
    return ids[key]


def _kind(name: str) -> EntityKind:
    if _DATE_LIKE.match(name):
        return "date"
    return "quantity" if _QUANTITY_LIKE.match(name) else "name"
