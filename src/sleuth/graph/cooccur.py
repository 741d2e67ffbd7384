"""The graph without a model: entities that are named together in one cited sentence.

Entities are found by the rule in `entities.py`. The key ones are those named in the most
cited sentences (an entity the question or the answer names counts double); the top
`MAX_ENTITIES` are kept. Two kept entities named in the same sentence are joined; the edge's
label is the text between them when it is a short phrase (1-6 words, no other entity: "keeps
audit logs for"), else "appears with". The `MAX_EDGES` edges named together most often are
drawn; each carries every (citation number, sentence) that supports it, the first few kept.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..types import Result
from .entities import Mention, find_mentions, keep_names, sentences
from .model import CitedText, Edge, Entity, Evidence, KnowledgeGraph, cited_texts, mentions

MAX_ENTITIES = 20
MAX_EDGES = 40
MAX_PER_SENTENCE = 8  # a long list sentence would otherwise join everything to everything
MAX_EVIDENCE = 3
MAX_PHRASE_WORDS = 6
FALLBACK_RELATION = "appears with"


@dataclass(frozen=True, slots=True)
class Sentence:
    citation: int
    url: str
    text: str
    mentions: tuple[Mention, ...]


@dataclass(slots=True)
class _Pair:
    relations: Counter[str] = field(default_factory=Counter)
    evidence: list[Evidence] = field(default_factory=list)
    count: int = 0
    first: int = 0


def cooccurrence_graph(result: Result, question: str | None = None) -> KnowledgeGraph:
    """The co-occurrence graph of a result's cited passages (deterministic)."""
    asked = question if question is not None else result.query
    found = _sentences(cited_texts(result))
    entities = _key_entities(found, f"{asked}\n{result.answer or ''}")
    edges = _edges(found, {key: e.id for key, e in entities.items()})
    used = {e.source for e in edges} | {e.target for e in edges}
    kept = tuple(e for e in entities.values() if e.id in used)
    return KnowledgeGraph(asked, "cooccurrence", kept, edges, result.session_id)


def _sentences(texts: list[CitedText]) -> list[Sentence]:
    raw = [
        (t.number, t.url, s, find_mentions(s))
        for t in texts
        for passage in t.passages
        for s in sentences(passage)
    ]
    names = keep_names(m for *_, found in raw for m in found)
    return [
        Sentence(n, url, s, tuple(m for m in found if not m.sentence_start or m.key in names))
        for n, url, s, found in raw
    ]


def _key_entities(found: list[Sentence], context: str) -> dict[str, Entity]:
    """The top entities by cited sentences naming them, in rank order, with ids e1, e2..."""
    counts: Counter[str] = Counter()
    labels: dict[str, Counter[str]] = {}
    kinds: dict[str, Mention] = {}
    for sentence in found:
        for m in {m.key: m for m in sentence.mentions}.values():
            counts[m.key] += 1
            labels.setdefault(m.key, Counter())[m.label] += 1
            kinds.setdefault(m.key, m)
    order = list(kinds)  # first appearance breaks ties
    score = {k: counts[k] * (2 if mentions(k, context) else 1) for k in order}
    ranked = sorted(order, key=lambda k: (-score[k], order.index(k)))[:MAX_ENTITIES]
    return {
        key: Entity(f"e{i}", labels[key].most_common(1)[0][0], kinds[key].kind, counts[key])
        for i, key in enumerate(ranked, 1)
    }


def _edges(found: list[Sentence], ids: dict[str, str]) -> tuple[Edge, ...]:
    pairs: dict[tuple[str, str], _Pair] = {}
    for sentence in found:
        named = list({m.key: m for m in sentence.mentions if m.key in ids}.values())
        named = named[:MAX_PER_SENTENCE]
        for i, a in enumerate(named):
            for b in named[i + 1 :]:
                key = (ids[a.key], ids[b.key])
                if _rank(key[1]) < _rank(key[0]):
                    key = (key[1], key[0])  # undirected: one pair whichever comes first
                pair = pairs.setdefault(key, _Pair(first=len(pairs)))
                _note(pair, sentence, a, b)
    ranked = sorted(pairs.items(), key=lambda kv: (-kv[1].count, kv[1].first))[:MAX_EDGES]
    return tuple(
        Edge(a, b, p.relations.most_common(1)[0][0], tuple(p.evidence)) for (a, b), p in ranked
    )


def _rank(entity_id: str) -> int:
    return int(entity_id[1:])


def _note(pair: _Pair, sentence: Sentence, a: Mention, b: Mention) -> None:
    pair.count += 1
    pair.relations[_phrase(sentence, a, b)] += 1
    cited = {e.citation for e in pair.evidence}
    if len(pair.evidence) < MAX_EVIDENCE and sentence.citation not in cited:
        pair.evidence.append(Evidence(sentence.citation, sentence.text, sentence.url))


def _phrase(sentence: Sentence, a: Mention, b: Mention) -> str:
    """The words between two mentions when they read as a relation, else the fallback."""
    first, second = (a, b) if a.start < b.start else (b, a)
    between = sentence.text[first.end : second.start]
    inside = any(first.end <= m.start < second.start for m in sentence.mentions)
    words = between.strip(" ,;:-–—()\"'").split()
    if inside or not 1 <= len(words) <= MAX_PHRASE_WORDS or any(c in between for c in ".;:"):
        return FALLBACK_RELATION
    return " ".join(words)
