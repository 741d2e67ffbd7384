"""Adding files: unchanged files do no work, bad files are skipped with a reason, batches
resume after an interruption, and owners never see each other's documents."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sleuth.errors import UsageError
from sleuth.kb import KnowledgeBase, Walk
from sleuth.kb.convert import convert
from sleuth.kb.documents import Document
from sleuth.kb.sqlite_store import SqliteKnowledgeStore
from sleuth.kb.store import KnowledgeStore
from tests.kb.docs import make_bad_files, make_folder


class CountingConverter:
    """The real converter, counting each extraction (and optionally interrupting one)."""

    def __init__(self, interrupt_at: int | None = None) -> None:
        self.names: list[str] = []
        self.interrupt_at = interrupt_at

    def __call__(self, data: bytes, name: str) -> Document:
        if self.interrupt_at is not None and len(self.names) + 1 == self.interrupt_at:
            raise KeyboardInterrupt
        self.names.append(name)
        return convert(data, name)


@pytest.fixture
def store(tmp_path: Path, backend: str | None) -> KnowledgeStore:
    """The knowledge-base store on SQLite, and on PostgreSQL (the same tests, both backends)."""
    if backend is None:
        return SqliteKnowledgeStore(tmp_path / "kb.db")
    from sleuth.kb.pg_store import PgKnowledgeStore

    return PgKnowledgeStore(backend)


def test_readding_an_unchanged_folder_extracts_nothing(
    tmp_path: Path, store: KnowledgeStore
) -> None:
    folder = tmp_path / "docs"
    make_folder(folder)
    make_bad_files(folder)
    kb = KnowledgeBase(store)
    first = CountingConverter()
    report = kb.add([str(folder)], converter=first)
    assert len(report.added) == 9 and len(first.names) == 13
    assert {Path(p).name for p, _ in report.skipped} == {
        "corrupt.pdf", "locked.pdf", "empty.txt", "really-a-pdf.docx"
    }  # fmt: skip
    again = CountingConverter()
    report = kb.add([str(folder)], converter=again)
    assert again.names == []
    assert len(report.unchanged) == 9 and len(report.skipped) == 4 and not report.added


def test_changed_file_is_reindexed_and_touched_file_is_not(
    tmp_path: Path, store: KnowledgeStore
) -> None:
    files = make_folder(tmp_path / "docs")
    kb = KnowledgeBase(store)
    kb.add([str(tmp_path / "docs")])
    note = files["text"]
    os.utime(note, (1, 1))  # same content, new mtime: hashed, not converted
    counter = CountingConverter()
    assert kb.add([str(note)], converter=counter).unchanged == [str(note.resolve())]
    assert counter.names == []
    note.write_text("The bicycle shed now holds twenty bicycles.\n", encoding="utf-8")
    report = kb.add([str(note)], converter=counter)
    assert report.updated == [str(note.resolve())] and counter.names == ["bikes.txt"]
    assert "twenty" in kb.search("bicycle shed", 1)[0].text
    assert not [h for h in kb.search("fourteen", 5) if "fourteen" in h.text]


def test_interrupted_batch_resumes_where_it_stopped(tmp_path: Path, store: KnowledgeStore) -> None:
    make_folder(tmp_path / "docs")
    kb = KnowledgeBase(store)
    with pytest.raises(KeyboardInterrupt):
        kb.add([str(tmp_path / "docs")], converter=CountingConverter(interrupt_at=4))
    assert len(kb.documents()) == 3  # the files before the interruption were committed
    rest = CountingConverter()
    report = kb.add([str(tmp_path / "docs")], converter=rest)
    assert len(rest.names) == 6 and len(report.unchanged) == 3 and len(kb.documents()) == 9


def test_owners_and_knowledge_bases_are_separate(tmp_path: Path, store: KnowledgeStore) -> None:
    files = make_folder(tmp_path / "docs")
    KnowledgeBase(store, "default", owner="org-a").add([str(files["pdf"])])
    other = KnowledgeBase(store, "default", owner="org-b")
    assert other.search("glorbium", 5) == [] and other.documents() == []
    assert KnowledgeBase(store, "work", owner="org-a").search("glorbium", 5) == []
    assert KnowledgeBase(store, "default", owner="org-a").search("glorbium", 5)
    assert [i.name for i in store.knowledge_bases("org-a")] == ["default"]
    assert store.knowledge_bases("org-b") == []


def test_one_owners_scores_do_not_move_with_anothers_documents(
    tmp_path: Path, store: KnowledgeStore
) -> None:
    """BM25 weighs terms by the passages that hold them: with one index for every owner, org
    B adding files would move org A's scores and tell A which words B's files hold."""
    files = make_folder(tmp_path / "docs")
    mine = KnowledgeBase(store, "default", owner="org-a")
    mine.add([str(files["pdf"]), str(files["markdown"])])
    before = [(h.url, h.score) for h in mine.search("glorbium report", 5)]
    assert before
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    for n in range(6):
        (theirs / f"note{n}.md").write_text(f"# Glorbium {n}\n\nGlorbium glorbium report {n}.\n")
    KnowledgeBase(store, "default", owner="org-b").add([str(theirs)])
    assert [(h.url, h.score) for h in mine.search("glorbium report", 5)] == before


def test_an_index_from_before_per_base_indexes_is_split_on_open(tmp_path: Path) -> None:
    """A knowledge base file written with one shared full-text table (schema 2) opens with
    each owner's passages in their own index, and searches find the same passages."""
    import sqlite3

    from sleuth.kb import sqlite_store
    from sleuth.kb.store import Scope

    path = tmp_path / "kb.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for step in sqlite_store.MIGRATIONS[:2]:
        step(conn)
    conn.execute("PRAGMA user_version = 2")
    for doc, owner in ((1, "org-a"), (2, "org-b")):
        conn.execute(
            "INSERT INTO kb_documents VALUES (?, ?, 'default', ?, 'Notes', 'md', 'x', 1, 1.0,"
            " NULL, '2026-01-01')",
            (doc, owner, f"/{owner}.md"),
        )
        conn.execute("INSERT INTO kb_sections VALUES (?, ?, 0, '', '', 'text')", (doc, doc))
        conn.execute("INSERT INTO kb_chunks VALUES (?, ?, ?, 0, NULL)", (doc, doc, doc))
        conn.execute(
            "INSERT INTO kb_fts (rowid, title, body) VALUES (?, 'Notes', ?)",
            (doc, f"the glorbium figures of {owner}"),
        )
    conn.close()
    store = SqliteKnowledgeStore(path)
    assert [h.chunk_id for h in store.match(Scope("org-a", "default"), "glorbium", 5)] == [1]
    assert [h.chunk_id for h in store.match(Scope("org-b", "default"), "glorbium", 5)] == [2]
    tables = {r[0] for r in store._rows("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "kb_fts" not in tables and {"kb_fts_1", "kb_fts_2"} <= tables
    assert store.drop(Scope("org-a", "default")) == 1
    tables = {r[0] for r in store._rows("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "kb_fts_1" not in tables and "kb_fts_2" in tables  # a dropped base leaves no index
    assert store.match(Scope("org-a", "default"), "glorbium", 5) == []


def test_remove_and_sync(tmp_path: Path, store: KnowledgeStore) -> None:
    files = make_folder(tmp_path / "docs")
    kb = KnowledgeBase(store)
    kb.add([str(tmp_path / "docs")])
    assert kb.remove([str(files["pdf"])]) == [str(files["pdf"].resolve())]
    assert kb.search("glorbium", 5) == []
    with pytest.raises(UsageError, match="not in knowledge base"):
        kb.remove([str(tmp_path / "nothing-here.txt")])
    files["markdown"].unlink()
    report, gone = kb.sync([str(tmp_path / "docs")])
    assert gone == [str(files["markdown"].resolve())]
    assert report.added == [str(files["pdf"].resolve())]  # it is in the folder again
    assert len(kb.documents()) == 8


def test_oversized_missing_and_glob(tmp_path: Path, store: KnowledgeStore) -> None:
    files = make_folder(tmp_path / "docs")
    kb = KnowledgeBase(store)
    ingest = kb.ingest()
    ingest.max_bytes = 10
    assert ingest.add_file(files["text"].resolve()) == ("skipped", "larger than 0 MB")
    with pytest.raises(UsageError, match="no such file"):
        kb.add([str(tmp_path / "missing")])
    nested = tmp_path / "docs" / "deeper"
    nested.mkdir()
    (nested / "inner.md").write_text("# Inner\n\nThe inner note mentions walruses.\n")
    assert len(kb.add([str(tmp_path / "docs")], Walk(glob="*.md")).added) == 1
    assert len(kb.add([str(tmp_path / "docs")], Walk(recursive=True, glob="*.md")).added) == 1
    assert kb.search("walruses", 1)[0].title == "Inner"


def test_upload_type_comes_from_content(tmp_path: Path, store: KnowledgeStore) -> None:
    files = make_folder(tmp_path / "docs")
    kb = KnowledgeBase(store, owner="org-a")
    doc = kb.add_upload("blob", files["docx"].read_bytes())
    assert doc.kind == "docx"
    assert [d.path for d in kb.documents()] == ["upload/blob"]
    assert kb.search("Quasar", 1)[0].url == "file:///upload/blob#table=1&rows=2-3"


def test_progress_reports_every_file(tmp_path: Path, store: KnowledgeStore) -> None:
    make_folder(tmp_path / "docs")
    make_bad_files(tmp_path / "docs")
    steps = []
    KnowledgeBase(store).add([str(tmp_path / "docs")], progress=steps.append)
    assert [s.done for s in steps] == list(range(1, 14)) and {s.total for s in steps} == {13}
    skipped = {Path(s.path).name: s.reason for s in steps if s.outcome == "skipped"}
    assert skipped["locked.pdf"] == "encrypted pdf (needs a password)"


def test_unsupported_files_in_a_folder_are_reported(tmp_path: Path, store: KnowledgeStore) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0 not text")
    (folder / "note.md").write_text("# Note\n\nA short note about herons.\n")
    counter = CountingConverter()
    report = KnowledgeBase(store).add([str(folder)], converter=counter)
    assert counter.names == ["note.md"]  # the photo is never read
    assert report.skipped == [
        (str((folder / "photo.jpg").resolve()), "unsupported file type (.jpg)")
    ]
    named = KnowledgeBase(store).add([str(folder / "photo.jpg")])  # named: content decides
    assert named.skipped[0][1] == "unsupported file type (binary content)"


def test_writers_in_parallel_each_keep_their_files(
    tmp_path: Path, store: KnowledgeStore, backend: str | None
) -> None:
    """Replicas (here threads, each with its own store) adding files to one new knowledge base
    at once: every file is kept, the same path written twice is one document."""
    from concurrent.futures import ThreadPoolExecutor

    def own_store() -> KnowledgeStore:
        if backend is None:
            return SqliteKnowledgeStore(tmp_path / "kb.db")
        from sleuth.kb.pg_store import PgKnowledgeStore

        return PgKnowledgeStore(backend)

    def add(n: int) -> None:
        kb = KnowledgeBase(own_store(), "shared", owner="org-a")
        kb.add_upload(f"note{n % 6}.md", f"# Note {n}\n\nThe heron count was {n}.\n".encode())

    with ThreadPoolExecutor(max_workers=6) as pool:
        list(pool.map(add, range(12)))
    kb = KnowledgeBase(store, "shared", owner="org-a")
    assert [d.path for d in kb.documents()] == [f"upload/note{n}.md" for n in range(6)]
    assert kb.stats().documents == 6 and kb.search("heron count", 10)
