"""The knowledge base in SQLite: FTS5 BM25 over passages, vectors as BLOBs beside them.

One file, `$SLEUTH_HOME/kb.db`, in WAL mode, beside sessions.db and cache.db; or `:memory:`
for the one-off knowledge base `--include` builds. One connection per store, guarded by a lock,
so an in-memory store works and a store can be shared by threads. Each file is written in one
transaction, which is what makes an interrupted `kb add` resumable: files already committed are
found unchanged on the next run. The schema grows by appending to MIGRATIONS.

Each knowledge base (an owner's named base) has its own FTS5 table, `kb_fts_<id>` listed in
`kb_indexes`: BM25 weighs a term by how many passages hold it and a passage by its length
against the average, so with one shared index an org's scores, and the order of its results,
would move as another org added documents — telling it which words the other's files hold.
FTS5 is a virtual table without foreign keys: `kb_chunks` maps each FTS rowid to its section,
so deleting a document deletes its rows from both explicitly.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..disk.sqlite import enable_wal
from ..text.passages import fts_query
from .store import (
    ChunkHit,
    DocumentInfo,
    FileState,
    IndexedDocument,
    KbInfo,
    Scope,
    SectionRecord,
)

TITLE_WEIGHT = 0.5  # as for a run's passages (text.passages): titles help, bodies decide
TOKENIZER = "porter unicode61 remove_diacritics 2"


def _v1(conn: sqlite3.Connection) -> None:
    _script(
        conn,
        """
        CREATE TABLE kb_documents (
            id INTEGER PRIMARY KEY,
            owner TEXT NOT NULL,
            kb TEXT NOT NULL,
            path TEXT NOT NULL,
            title TEXT NOT NULL,
            kind TEXT NOT NULL,
            sha256 TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime REAL NOT NULL,
            published TEXT,
            added_at TEXT NOT NULL,
            UNIQUE (owner, kb, path)
        );
        CREATE TABLE kb_sections (
            id INTEGER PRIMARY KEY,
            doc_id INTEGER NOT NULL REFERENCES kb_documents(id) ON DELETE CASCADE,
            ordinal INTEGER NOT NULL,
            location TEXT NOT NULL,
            anchor TEXT NOT NULL,
            text TEXT NOT NULL
        );
        CREATE INDEX kb_sections_doc ON kb_sections(doc_id);
        CREATE TABLE kb_chunks (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            doc_id INTEGER NOT NULL REFERENCES kb_documents(id) ON DELETE CASCADE,
            section_id INTEGER NOT NULL,
            start INTEGER NOT NULL,
            vector BLOB
        );
        CREATE INDEX kb_chunks_doc ON kb_chunks(doc_id);
        CREATE VIRTUAL TABLE kb_fts USING fts5(
            title, body, tokenize='porter unicode61 remove_diacritics 2'
        );
        """,
    )


def _script(conn: sqlite3.Connection, sql: str) -> None:
    """Statement by statement: `executescript` would commit the migration's transaction."""
    for statement in sql.split(";"):
        if statement.strip():
            conn.execute(statement)


def _v2(conn: sqlite3.Connection) -> None:
    conn.execute(
        "CREATE TABLE kb_skipped (owner TEXT NOT NULL, kb TEXT NOT NULL, path TEXT NOT NULL,"
        " size INTEGER NOT NULL, mtime REAL NOT NULL, sha256 TEXT NOT NULL,"
        " reason TEXT NOT NULL, PRIMARY KEY (owner, kb, path))"
    )


def _v3(conn: sqlite3.Connection) -> None:
    """The one shared full-text table split into one per knowledge base (see above)."""
    conn.execute(
        "CREATE TABLE kb_indexes (id INTEGER PRIMARY KEY, owner TEXT NOT NULL,"
        " kb TEXT NOT NULL, UNIQUE (owner, kb))"
    )
    scopes = conn.execute("SELECT DISTINCT owner, kb FROM kb_documents ORDER BY owner, kb")
    for owner, kb in scopes.fetchall():
        table = _index(conn, Scope(owner, kb), create=True)
        conn.execute(
            f"INSERT INTO {table} (rowid, title, body) SELECT f.rowid, f.title, f.body"
            " FROM kb_fts f JOIN kb_chunks c ON c.id = f.rowid"
            " JOIN kb_documents d ON d.id = c.doc_id WHERE d.owner=? AND d.kb=?",
            (owner, kb),
        )
    conn.execute("DROP TABLE kb_fts")


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_v1, _v2, _v3)


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class SqliteKnowledgeStore:
    def __init__(self, path: Path | str) -> None:
        if isinstance(path, Path):
            path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(
            str(path), timeout=30, isolation_level=None, check_same_thread=False
        )
        self._lock = threading.RLock()
        self._conn.execute("PRAGMA foreign_keys=ON")
        enable_wal(self._conn)  # waits out another process creating the same file
        self._conn.execute("PRAGMA synchronous=NORMAL")  # an index can be rebuilt; speed wins
        self._migrate()

    def _migrate(self) -> None:
        version = int(self._conn.execute("PRAGMA user_version").fetchone()[0])
        for number, step in enumerate(MIGRATIONS[version:], start=version + 1):
            with self._tx() as conn:
                step(conn)
                conn.execute(f"PRAGMA user_version = {number}")

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _rows(self, sql: str, args: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._conn.execute(sql, args).fetchall()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    # -- writing -----------------------------------------------------------------------------

    def file_state(self, scope: Scope, path: str) -> FileState | None:
        rows = self._rows(
            "SELECT size, mtime, sha256 FROM kb_documents WHERE owner=? AND kb=? AND path=?",
            (scope.owner, scope.name, path),
        )
        if not rows:
            return None
        size, mtime, sha = rows[0]
        return FileState(path, int(size), float(mtime), str(sha))

    def skipped_state(self, scope: Scope, path: str) -> tuple[FileState, str] | None:
        rows = self._rows(
            "SELECT size, mtime, sha256, reason FROM kb_skipped WHERE owner=? AND kb=? AND path=?",
            (scope.owner, scope.name, path),
        )
        if not rows:
            return None
        size, mtime, sha, reason = rows[0]
        return FileState(path, size, mtime, sha), reason

    def mark_skipped(self, scope: Scope, state: FileState, reason: str) -> None:
        with self._tx() as conn:
            _delete(conn, scope, [state.path])
            conn.execute(
                "INSERT OR REPLACE INTO kb_skipped VALUES (?, ?, ?, ?, ?, ?, ?)",
                (scope.owner, scope.name, state.path, state.size, state.mtime, state.sha256,
                 reason),
            )  # fmt: skip

    def touch(self, scope: Scope, state: FileState) -> None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE kb_documents SET size=?, mtime=? WHERE owner=? AND kb=? AND path=?",
                (state.size, state.mtime, scope.owner, scope.name, state.path),
            )

    def put(self, scope: Scope, doc: IndexedDocument) -> None:
        d, s = doc.document, doc.state
        with self._tx() as conn:
            _delete(conn, scope, [s.path])
            cur = conn.execute(
                "INSERT INTO kb_documents (owner, kb, path, title, kind, sha256, size, mtime,"
                " published, added_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (scope.owner, scope.name, s.path, d.title, d.kind, s.sha256, s.size, s.mtime,
                 d.published, now_iso()),
            )  # fmt: skip
            doc_id = cur.lastrowid
            table = _index(conn, scope, create=True)
            section_ids = []
            for ordinal, section in enumerate(d.sections):
                cur = conn.execute(
                    "INSERT INTO kb_sections (doc_id, ordinal, location, anchor, text)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (doc_id, ordinal, section.location, section.anchor, section.text),
                )
                section_ids.append(cur.lastrowid)
            for chunk in doc.chunks:
                cur = conn.execute(
                    "INSERT INTO kb_chunks (doc_id, section_id, start, vector) VALUES (?, ?, ?, ?)",
                    (doc_id, section_ids[chunk.section], chunk.start, chunk.vector),
                )
                conn.execute(
                    f"INSERT INTO {table} (rowid, title, body) VALUES (?, ?, ?)",
                    (cur.lastrowid, d.title, chunk.text),
                )

    def remove(self, scope: Scope, paths: Sequence[str]) -> int:
        with self._tx() as conn:
            return _delete(conn, scope, paths)

    def drop(self, scope: Scope) -> int:
        paths = [d.path for d in self.documents(scope)]
        with self._tx() as conn:
            removed = _delete(conn, scope, paths)
            if table := _index(conn, scope):
                conn.execute(f"DROP TABLE {table}")
                conn.execute("DELETE FROM kb_indexes WHERE owner=? AND kb=?", (scope.owner,
                             scope.name))  # fmt: skip
            return removed

    # -- reading -----------------------------------------------------------------------------

    def documents(self, scope: Scope) -> list[DocumentInfo]:
        rows = self._rows(
            "SELECT d.path, d.title, d.kind, COUNT(s.id), COALESCE(SUM(LENGTH(s.text)), 0),"
            " d.size, d.added_at FROM kb_documents d LEFT JOIN kb_sections s ON s.doc_id = d.id"
            " WHERE d.owner=? AND d.kb=? GROUP BY d.id ORDER BY d.path",
            (scope.owner, scope.name),
        )
        return [DocumentInfo(*row) for row in rows]

    def knowledge_bases(self, owner: str) -> list[KbInfo]:
        rows = self._rows(
            "SELECT d.kb, COUNT(DISTINCT d.id), MAX(d.added_at),"
            " (SELECT COUNT(*) FROM kb_sections s JOIN kb_documents e ON e.id = s.doc_id"
            "   WHERE e.owner = d.owner AND e.kb = d.kb),"
            " (SELECT COALESCE(SUM(LENGTH(s.text)), 0) FROM kb_sections s"
            "   JOIN kb_documents e ON e.id = s.doc_id WHERE e.owner = d.owner AND e.kb = d.kb),"
            " (SELECT COUNT(*) FROM kb_chunks c JOIN kb_documents e ON e.id = c.doc_id"
            "   WHERE e.owner = d.owner AND e.kb = d.kb),"
            " (SELECT COUNT(c.vector) FROM kb_chunks c JOIN kb_documents e ON e.id = c.doc_id"
            "   WHERE e.owner = d.owner AND e.kb = d.kb)"
            " FROM kb_documents d WHERE d.owner=? GROUP BY d.kb ORDER BY d.kb",
            (owner,),
        )
        return [
            KbInfo(kb, docs, sections, chunks, chars, vectors, updated)
            for kb, docs, updated, sections, chars, chunks, vectors in rows
        ]

    def match(self, scope: Scope, query: str, limit: int) -> list[ChunkHit]:
        expression = fts_query(query)
        if not expression:
            return []
        with self._lock:
            table = _index(self._conn, scope)
            if table is None:
                return []
            rows = self._conn.execute(
                f"SELECT c.id, c.section_id, bm25({table}, ?, 1.0) AS rank FROM {table}"
                f" JOIN kb_chunks c ON c.id = {table}.rowid JOIN kb_documents d"
                f" ON d.id = c.doc_id WHERE {table} MATCH ? AND d.owner=? AND d.kb=?"
                " ORDER BY rank LIMIT ?",
                (TITLE_WEIGHT, expression, scope.owner, scope.name, limit),
            ).fetchall()
        return [ChunkHit(int(c), int(s), -float(r)) for c, s, r in rows]

    def vectors(self, scope: Scope) -> tuple[list[tuple[int, int]], bytes]:
        rows = self._rows(
            "SELECT c.id, c.section_id, c.vector FROM kb_chunks c JOIN kb_documents d"
            " ON d.id = c.doc_id WHERE d.owner=? AND d.kb=? AND c.vector IS NOT NULL"
            " ORDER BY c.id",
            (scope.owner, scope.name),
        )
        ids = [(int(c), int(s)) for c, s, _ in rows]
        return ids, b"".join(v for _, _, v in rows)

    def vectors_version(self, scope: Scope) -> tuple[int, int]:
        rows = self._rows(
            "SELECT COUNT(c.vector), COALESCE(MAX(c.id), 0) FROM kb_chunks c"
            " JOIN kb_documents d ON d.id = c.doc_id WHERE d.owner=? AND d.kb=?",
            (scope.owner, scope.name),
        )
        return int(rows[0][0]), int(rows[0][1])

    def sections(self, ids: Sequence[int]) -> dict[int, SectionRecord]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self._rows(
            "SELECT s.id, d.path, d.title, d.kind, s.location, s.anchor, s.text, d.published,"
            f" d.mtime FROM kb_sections s JOIN kb_documents d ON d.id = s.doc_id"
            f" WHERE s.id IN ({marks})",
            list(ids),
        )
        return {int(r[0]): SectionRecord(*r) for r in rows}

    def section_ids(self, scope: Scope, limit: int) -> list[int]:
        rows = self._rows(
            "SELECT s.id FROM kb_sections s JOIN kb_documents d ON d.id = s.doc_id"
            " WHERE d.owner=? AND d.kb=? ORDER BY d.path, s.ordinal LIMIT ?",
            (scope.owner, scope.name, limit),
        )
        return [int(r[0]) for r in rows]


def _index(conn: sqlite3.Connection, scope: Scope, *, create: bool = False) -> str | None:
    """The name of the knowledge base's own full-text table (made from its integer id, never
    from the owner's or base's name); None when it has none and `create` is false."""
    row = conn.execute(
        "SELECT id FROM kb_indexes WHERE owner=? AND kb=?", (scope.owner, scope.name)
    ).fetchone()
    if row is None and not create:
        return None
    if row is None:
        cur = conn.execute(
            "INSERT INTO kb_indexes (owner, kb) VALUES (?, ?)", (scope.owner, scope.name)
        )
        table = f"kb_fts_{int(cur.lastrowid or 0)}"
        conn.execute(
            f"CREATE VIRTUAL TABLE {table} USING fts5(title, body, tokenize='{TOKENIZER}')"
        )
        return table
    return f"kb_fts_{int(row[0])}"


def _delete(conn: sqlite3.Connection, scope: Scope, paths: Sequence[str]) -> int:
    removed = 0
    table = _index(conn, scope)
    for path in paths:
        conn.execute(
            "DELETE FROM kb_skipped WHERE owner=? AND kb=? AND path=?",
            (scope.owner, scope.name, path),
        )
        row = conn.execute(
            "SELECT id FROM kb_documents WHERE owner=? AND kb=? AND path=?",
            (scope.owner, scope.name, path),
        ).fetchone()
        if row is None:
            continue
        if table is not None:
            conn.execute(
                f"DELETE FROM {table} WHERE rowid IN (SELECT id FROM kb_chunks WHERE doc_id=?)",
                row,
            )
        conn.execute("DELETE FROM kb_documents WHERE id=?", row)
        removed += 1
    return removed
