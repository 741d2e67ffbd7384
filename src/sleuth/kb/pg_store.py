"""The knowledge base in PostgreSQL (`SLEUTH_DATABASE_URL`): every replica sees every base.

Documents, sections and passages live in tables shared by every replica and CLI on the
database, so a file uploaded through one replica is listed and searched through any other.
Passages are indexed with PostgreSQL's own full-text search (a `tsvector` per passage, the
title weighted 'A', under a GIN index) and ranked by BM25 computed in SQL with the statistics
of the passage's own knowledge base only — passages counted, average length, how many
passages hold each term — the way the SQLite store keeps one FTS5 table per base: with
statistics shared across bases, one org adding files would move another's scores and tell it
which words those files hold. The formula is FTS5's (k1 1.2, b 0.75, idf floored at 1e-6,
title hits weighted 0.5), so both backends order results alike; the tokenizer differs
(PostgreSQL's `english` snowball stemmer and stop words, FTS5's porter).

Writes to one base are serialised by locking its row, so two replicas indexing the same path
at once replace it in turn instead of failing on the unique path.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg

from ..store import postgres
from ..store.kb_pg_schema import COMPONENT, STEPS
from ..text import content_tokens
from .documents import Section
from .sqlite_store import TITLE_WEIGHT, now_iso
from .store import ChunkHit, DocumentInfo, FileState, IndexedDocument, KbInfo, Scope, SectionRecord

CONFIG = "english"  # the text search configuration: stemming and stop words
K1, B = 1.2, 0.75  # FTS5's bm25() constants
MAX_TERMS = 40
_SEPARATORS = re.compile(r"[\W_]+")


# A passage's terms: the title's weighted 'A' (counted at TITLE_WEIGHT), the body's 'D'; its
# length in tokens (title and body, as FTS5 counts a row) is kept beside it for BM25. Positions
# count the stop words the vector leaves out, so the last one is the length FTS5 would count.
INSERT_CHUNK = f"""
    INSERT INTO kb_chunks (doc_id, base_id, section_id, start, vector, terms, tokens)
    SELECT %s, %s, %s, %s, %s, t.v,
           (SELECT COALESCE(max(p), 0) FROM unnest(t.v) u, unnest(u.positions) p)
    FROM (SELECT setweight(to_tsvector('{CONFIG}', %s), 'A')
                 || to_tsvector('{CONFIG}', %s) AS v) t"""

# BM25 over one base: the base's passage count and average length, each term's passage count
# in that base, the title's hits weighted. Only passages holding a term are visited (GIN).
MATCH = f"""
    WITH q AS (SELECT websearch_to_tsquery('{CONFIG}', %(words)s) AS query,
                      tsvector_to_array(to_tsvector('{CONFIG}', %(text)s)) AS terms),
    stats AS (SELECT count(*)::float8 AS n, GREATEST(COALESCE(avg(tokens), 1), 1)::float8 AS avgdl
              FROM kb_chunks WHERE base_id = %(base)s),
    hits AS (
        SELECT c.id, c.section_id, c.tokens, u.lexeme,
               (SELECT sum(CASE WHEN w = 'A' THEN %(title)s ELSE 1 END)
                FROM unnest(u.weights) w)::float8 AS tf
        FROM kb_chunks c CROSS JOIN q CROSS JOIN LATERAL unnest(c.terms) u
        WHERE c.base_id = %(base)s AND c.terms @@ q.query AND u.lexeme = ANY(q.terms)),
    df AS (SELECT lexeme, count(DISTINCT id)::float8 AS df FROM hits GROUP BY lexeme)
    SELECT h.id, h.section_id,
           sum(GREATEST(ln((s.n - df.df + 0.5) / (df.df + 0.5)), 1e-6)
               * h.tf * {K1 + 1} / (h.tf + {K1} * (1 - {B} + {B} * h.tokens / s.avgdl))) AS score
    FROM hits h JOIN df USING (lexeme) CROSS JOIN stats s
    GROUP BY h.id, h.section_id ORDER BY score DESC, h.id LIMIT %(limit)s"""

_migrated: set[str] = set()  # URLs this process has brought to the current schema


class PgKnowledgeStore:
    """Implements `kb.store.KnowledgeStore` on a PostgreSQL database."""

    def __init__(self, url: str) -> None:
        self.url = url
        if url not in _migrated:
            with postgres.connection(url) as conn:
                postgres.migrate(conn, COMPONENT, STEPS, url)
            _migrated.add(url)

    @contextmanager
    def _tx(self) -> Iterator[psycopg.Connection[Any]]:
        with postgres.connection(self.url) as conn, conn.transaction():
            yield conn

    def _rows(self, sql: str, args: Any = ()) -> list[tuple[Any, ...]]:
        with postgres.connection(self.url) as conn:
            return conn.execute(sql, args).fetchall()

    def close(self) -> None:
        """Nothing to close: connections belong to the process's pool for the URL."""

    # -- writing -----------------------------------------------------------------------------

    def file_state(self, scope: Scope, path: str) -> FileState | None:
        rows = self._rows(
            "SELECT d.size, d.mtime, d.sha256 FROM kb_documents d JOIN kb_bases b"
            " ON b.id = d.base_id WHERE b.owner=%s AND b.kb=%s AND d.path=%s",
            (scope.owner, scope.name, path),
        )
        if not rows:
            return None
        size, mtime, sha = rows[0]
        return FileState(path, int(size), float(mtime), str(sha))

    def skipped_state(self, scope: Scope, path: str) -> tuple[FileState, str] | None:
        rows = self._rows(
            "SELECT k.size, k.mtime, k.sha256, k.reason FROM kb_skipped k JOIN kb_bases b"
            " ON b.id = k.base_id WHERE b.owner=%s AND b.kb=%s AND k.path=%s",
            (scope.owner, scope.name, path),
        )
        if not rows:
            return None
        size, mtime, sha, reason = rows[0]
        return FileState(path, int(size), float(mtime), str(sha)), str(reason)

    def mark_skipped(self, scope: Scope, state: FileState, reason: str) -> None:
        with self._tx() as conn:
            base = _base(conn, scope)
            _delete(conn, base, [state.path])
            conn.execute(
                "INSERT INTO kb_skipped VALUES (%s, %s, %s, %s, %s, %s)",
                (base, state.path, state.size, state.mtime, state.sha256, reason),
            )

    def touch(self, scope: Scope, state: FileState) -> None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE kb_documents d SET size=%s, mtime=%s FROM kb_bases b WHERE b.id ="
                " d.base_id AND b.owner=%s AND b.kb=%s AND d.path=%s",
                (state.size, state.mtime, scope.owner, scope.name, state.path),
            )

    def put(self, scope: Scope, doc: IndexedDocument) -> None:
        with self._tx() as conn:
            base = _base(conn, scope)
            _delete(conn, base, [doc.state.path])
            doc_id = _insert_document(conn, base, doc)
            sections = [
                _insert_section(conn, doc_id, n, x) for n, x in enumerate(doc.document.sections)
            ]
            title = _plain(doc.document.title)
            rows = [
                (doc_id, base, sections[c.section], c.start, c.vector, title, _plain(c.text))
                for c in doc.chunks
            ]
            if rows:
                conn.cursor().executemany(INSERT_CHUNK, rows)

    def remove(self, scope: Scope, paths: Sequence[str]) -> int:
        with self._tx() as conn:
            base = _existing(conn, scope)
            return _delete(conn, base, paths) if base is not None else 0

    def drop(self, scope: Scope) -> int:
        with self._tx() as conn:
            base = _existing(conn, scope)
            if base is None:
                return 0
            count = conn.execute("SELECT count(*) FROM kb_documents WHERE base_id=%s", (base,))
            removed = int(_one(count))
            conn.execute("DELETE FROM kb_bases WHERE id=%s", (base,))  # cascades to the rest
            return removed

    # -- reading -----------------------------------------------------------------------------

    def documents(self, scope: Scope) -> list[DocumentInfo]:
        rows = self._rows(
            "SELECT d.path, d.title, d.kind, count(s.id), COALESCE(sum(length(s.text)), 0),"
            " d.size, d.added_at FROM kb_documents d JOIN kb_bases b ON b.id = d.base_id"
            " LEFT JOIN kb_sections s ON s.doc_id = d.id WHERE b.owner=%s AND b.kb=%s"
            " GROUP BY d.id ORDER BY d.path",
            (scope.owner, scope.name),
        )
        return [DocumentInfo(p, t, k, int(n), int(c), int(z), a) for p, t, k, n, c, z, a in rows]

    def knowledge_bases(self, owner: str) -> list[KbInfo]:
        rows = self._rows(
            "SELECT b.kb, count(d.id), max(d.added_at),"
            " (SELECT count(*) FROM kb_sections s JOIN kb_documents e ON e.id = s.doc_id"
            "   WHERE e.base_id = b.id),"
            " (SELECT COALESCE(sum(length(s.text)), 0) FROM kb_sections s"
            "   JOIN kb_documents e ON e.id = s.doc_id WHERE e.base_id = b.id),"
            " (SELECT count(*) FROM kb_chunks c WHERE c.base_id = b.id),"
            " (SELECT count(c.vector) FROM kb_chunks c WHERE c.base_id = b.id)"
            " FROM kb_bases b JOIN kb_documents d ON d.base_id = b.id WHERE b.owner=%s"
            " GROUP BY b.id, b.kb ORDER BY b.kb",
            (owner,),
        )
        return [
            KbInfo(kb, int(docs), int(sections), int(chunks), int(chars), int(vectors), updated)
            for kb, docs, updated, sections, chars, chunks, vectors in rows
        ]

    def match(self, scope: Scope, query: str, limit: int) -> list[ChunkHit]:
        words = [w for t in content_tokens(query) for w in _plain(t).split()]
        words = [w for w in dict.fromkeys(words) if w.lower() != "or"][:MAX_TERMS]
        base = self._base_id(scope)
        if not words or base is None:
            return []
        rows = self._rows(
            MATCH,
            {"words": " or ".join(words), "text": " ".join(words), "base": base,
             "title": TITLE_WEIGHT, "limit": limit},
        )  # fmt: skip
        return [ChunkHit(int(c), int(s), float(score)) for c, s, score in rows]

    def _base_id(self, scope: Scope) -> int | None:
        rows = self._rows(
            "SELECT id FROM kb_bases WHERE owner=%s AND kb=%s", (scope.owner, scope.name)
        )
        return int(rows[0][0]) if rows else None

    def vectors(self, scope: Scope) -> tuple[list[tuple[int, int]], bytes]:
        rows = self._rows(
            "SELECT c.id, c.section_id, c.vector FROM kb_chunks c JOIN kb_bases b"
            " ON b.id = c.base_id WHERE b.owner=%s AND b.kb=%s AND c.vector IS NOT NULL"
            " ORDER BY c.id",
            (scope.owner, scope.name),
        )
        return [(int(c), int(s)) for c, s, _ in rows], b"".join(bytes(v) for _, _, v in rows)

    def vectors_version(self, scope: Scope) -> tuple[int, int]:
        rows = self._rows(
            "SELECT count(c.vector), COALESCE(max(c.id), 0) FROM kb_chunks c JOIN kb_bases b"
            " ON b.id = c.base_id WHERE b.owner=%s AND b.kb=%s",
            (scope.owner, scope.name),
        )
        return int(rows[0][0]), int(rows[0][1])

    def sections(self, ids: Sequence[int]) -> dict[int, SectionRecord]:
        if not ids:
            return {}
        rows = self._rows(
            "SELECT s.id, d.path, d.title, d.kind, s.location, s.anchor, s.text, d.published,"
            " d.mtime FROM kb_sections s JOIN kb_documents d ON d.id = s.doc_id"
            " WHERE s.id = ANY(%s)",
            (list(ids),),
        )
        return {int(r[0]): SectionRecord(int(r[0]), *r[1:]) for r in rows}

    def section_ids(self, scope: Scope, limit: int) -> list[int]:
        rows = self._rows(
            "SELECT s.id FROM kb_sections s JOIN kb_documents d ON d.id = s.doc_id"
            " JOIN kb_bases b ON b.id = d.base_id WHERE b.owner=%s AND b.kb=%s"
            " ORDER BY d.path, s.ordinal LIMIT %s",
            (scope.owner, scope.name, limit),
        )
        return [int(r[0]) for r in rows]


def _insert_document(conn: psycopg.Connection[Any], base: int, doc: IndexedDocument) -> int:
    d, s = doc.document, doc.state
    inserted = conn.execute(
        "INSERT INTO kb_documents (base_id, path, title, kind, sha256, size, mtime, published,"
        " added_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
        (base, s.path, d.title, d.kind, s.sha256, s.size, s.mtime, d.published, now_iso()),
    )
    return int(_one(inserted))


def _insert_section(
    conn: psycopg.Connection[Any], doc_id: int, ordinal: int, section: Section
) -> int:
    inserted = conn.execute(
        "INSERT INTO kb_sections (doc_id, ordinal, location, anchor, text)"
        " VALUES (%s, %s, %s, %s, %s) RETURNING id",
        (doc_id, ordinal, section.location, section.anchor, section.text),
    )
    return int(_one(inserted))


def _plain(text: str) -> str:
    """Text split as FTS5's unicode61 tokenizer splits it (every run of non-alphanumerics a
    separator, diacritics removed), so "report-2023.pdf" is three words here as there, not
    one file name, and "café" matches "cafe"."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return _SEPARATORS.sub(" ", bare)


def _base(conn: psycopg.Connection[Any], scope: Scope) -> int:
    """The base's id, made when missing, its row locked for this transaction: writes to one
    base take turns."""
    conn.execute(
        "INSERT INTO kb_bases (owner, kb) VALUES (%s, %s) ON CONFLICT DO NOTHING",
        (scope.owner, scope.name),
    )
    found = _existing(conn, scope)
    assert found is not None  # inserted above, and bases are only deleted under this lock
    return found


def _existing(conn: psycopg.Connection[Any], scope: Scope) -> int | None:
    """The base's id with its row locked for this transaction, or None when it has none."""
    row = conn.execute(
        "SELECT id FROM kb_bases WHERE owner=%s AND kb=%s FOR UPDATE", (scope.owner, scope.name)
    ).fetchone()
    return int(row[0]) if row else None


def _one(cursor: psycopg.Cursor[Any]) -> Any:
    """The first column of the statement's one row."""
    row = cursor.fetchone()
    assert row is not None  # INSERT … RETURNING and aggregates always return a row
    return row[0]


def _delete(conn: psycopg.Connection[Any], base: int, paths: Sequence[str]) -> int:
    """Forget `paths` in the base (documents, their sections and passages, skip records)."""
    if not paths:
        return 0
    conn.execute("DELETE FROM kb_skipped WHERE base_id=%s AND path = ANY(%s)", (base, list(paths)))
    doomed = conn.execute(
        "SELECT id FROM kb_documents WHERE base_id=%s AND path = ANY(%s)", (base, list(paths))
    ).fetchall()
    ids = [int(r[0]) for r in doomed]
    if ids:
        conn.execute("DELETE FROM kb_documents WHERE id = ANY(%s)", (ids,))  # cascades
    return len(ids)
