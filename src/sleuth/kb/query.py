"""Searching a knowledge base: best passages, fused, grouped into citable sections.

BM25 (the store's full-text index) finds the best passages; with an embedder, the nearest
passages by cosine similarity are fused with them by reciprocal rank. Passages are then grouped
by section, a section scoring as its best passage, because a section (a page, a slide, a run of
rows) is what a source is and what a citation names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .ingest import Embedder
from .store import ChunkHit, KnowledgeStore, Scope, SectionRecord

RRF_K = 60
POOL = 8  # passages looked at per section wanted: several passages often share a section


@dataclass(frozen=True, slots=True)
class KbHit:
    url: str  # file:///path/report.pdf#page=3
    title: str
    kind: str  # the converter's kind: "pdf", "docx", ...
    location: str
    text: str  # the whole section
    score: float
    published: str | None
    modified: float  # the file's mtime
    path: str


def file_url(path: str, anchor: str = "") -> str:
    """`file://` URL of a document; uploads (no file on disk) sit under a virtual `/upload/`."""
    url = Path(path).as_uri() if Path(path).is_absolute() else "file:///" + quote(path)
    return f"{url}#{quote(anchor, safe='=&-')}" if anchor else url


def search(
    store: KnowledgeStore,
    scope: Scope,
    text: str,
    limit: int = 10,
    embedder: Embedder | None = None,
    dense: DenseIndex | None = None,
) -> list[KbHit]:
    pool = max(limit * POOL, 50)
    ranked: list[list[ChunkHit]] = [store.match(scope, text, pool)]
    if embedder is not None:
        index = dense or DenseIndex()
        ranked.append(index.nearest(store, scope, embedder.query(text), pool))
    best = fuse(ranked) if len(ranked) > 1 else _best_per_section(ranked[0])
    top = sorted(best, key=lambda s: -best[s])[:limit]
    records = store.sections(top)
    return [_hit(records[s], best[s]) for s in top if s in records]


def whole(store: KnowledgeStore, scope: Scope, limit: int) -> list[KbHit] | None:
    """Every section of a knowledge base that holds at most `limit` of them, by path and place
    in the file, scored 0 (nothing matched); None for a larger base."""
    ids = store.section_ids(scope, limit + 1)
    if len(ids) > limit:
        return None
    records = store.sections(ids)
    return [_hit(records[s], 0.0) for s in ids if s in records]


def _best_per_section(hits: Sequence[ChunkHit]) -> dict[int, float]:
    best: dict[int, float] = {}
    for hit in hits:  # best first: a section keeps its first (best) passage's score
        best.setdefault(hit.section_id, hit.score)
    return best


def fuse(ranked: Sequence[Sequence[ChunkHit]]) -> dict[int, float]:
    """Reciprocal-rank fusion of chunk lists, kept per section (its best chunk's fused score)."""
    chunk_score: dict[int, float] = {}
    section_of: dict[int, int] = {}
    for hits in ranked:
        for position, hit in enumerate(hits, start=1):
            chunk_score[hit.chunk_id] = chunk_score.get(hit.chunk_id, 0.0) + 1 / (RRF_K + position)
            section_of[hit.chunk_id] = hit.section_id
    by_section: dict[int, float] = {}
    for chunk_id, score in chunk_score.items():
        section = section_of[chunk_id]
        by_section[section] = max(by_section.get(section, 0.0), score)
    return dict(sorted(by_section.items(), key=lambda item: -item[1]))


def _hit(record: SectionRecord, score: float) -> KbHit:
    return KbHit(
        url=file_url(record.path, record.anchor),
        title=record.title,
        kind=record.kind,
        location=record.location,
        text=record.text,
        score=score,
        published=record.published,
        modified=record.mtime,
        path=record.path,
    )


class DenseIndex:
    """Brute-force cosine search over a knowledge base's vectors, cached until they change.

    numpy is imported only here, and only with an embedder (the `sleuth[embed]` extra)."""

    def __init__(self) -> None:
        self._cache: dict[Scope, tuple[tuple[int, int], list[tuple[int, int]], object]] = {}

    def nearest(
        self, store: KnowledgeStore, scope: Scope, query: bytes, limit: int
    ) -> list[ChunkHit]:
        import numpy as np

        ids, matrix = self._matrix(store, scope)
        if not ids:
            return []
        q = np.frombuffer(query, dtype=np.float32)
        scores = matrix @ q
        top = np.argsort(-scores)[:limit]
        return [ChunkHit(ids[i][0], ids[i][1], float(scores[i])) for i in top]

    def _matrix(self, store: KnowledgeStore, scope: Scope) -> tuple[list[tuple[int, int]], Any]:
        import numpy as np

        version = store.vectors_version(scope)
        cached = self._cache.get(scope)
        if cached is not None and cached[0] == version:
            return cached[1], cached[2]
        ids, blob = store.vectors(scope)
        matrix = np.frombuffer(blob, dtype=np.float32).reshape(len(ids), -1) if ids else None
        self._cache[scope] = (version, ids, matrix)
        return ids, matrix
