"""The PostgreSQL schema of the knowledge bases, apart from their store (`kb/pg_store.py`) so
the list of every known schema (`schemas.py`) does not import the knowledge-base package."""

from __future__ import annotations

COMPONENT = "kb"

# Append only: a database at version N runs STEPS[N:] (see `postgres.migrate`).
STEPS: tuple[str, ...] = (
    """CREATE TABLE kb_bases (
        id BIGSERIAL PRIMARY KEY,
        owner TEXT COLLATE "C" NOT NULL,
        kb TEXT COLLATE "C" NOT NULL,
        UNIQUE (owner, kb)
    );
    CREATE TABLE kb_documents (
        id BIGSERIAL PRIMARY KEY,
        base_id BIGINT NOT NULL REFERENCES kb_bases(id) ON DELETE CASCADE,
        path TEXT COLLATE "C" NOT NULL,
        title TEXT NOT NULL,
        kind TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        size BIGINT NOT NULL,
        mtime DOUBLE PRECISION NOT NULL,
        published TEXT,
        added_at TEXT NOT NULL,
        UNIQUE (base_id, path)
    );
    CREATE TABLE kb_sections (
        id BIGSERIAL PRIMARY KEY,
        doc_id BIGINT NOT NULL REFERENCES kb_documents(id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        location TEXT NOT NULL,
        anchor TEXT NOT NULL,
        text TEXT NOT NULL
    );
    CREATE INDEX kb_sections_doc ON kb_sections (doc_id);
    CREATE TABLE kb_chunks (
        id BIGSERIAL PRIMARY KEY,
        doc_id BIGINT NOT NULL REFERENCES kb_documents(id) ON DELETE CASCADE,
        base_id BIGINT NOT NULL,
        section_id BIGINT NOT NULL,
        start INTEGER NOT NULL,
        vector BYTEA,
        terms TSVECTOR NOT NULL,
        tokens INTEGER NOT NULL
    );
    CREATE INDEX kb_chunks_doc ON kb_chunks (doc_id);
    CREATE INDEX kb_chunks_base ON kb_chunks (base_id);
    CREATE INDEX kb_chunks_terms ON kb_chunks USING GIN (terms);
    CREATE TABLE kb_skipped (
        base_id BIGINT NOT NULL REFERENCES kb_bases(id) ON DELETE CASCADE,
        path TEXT COLLATE "C" NOT NULL,
        size BIGINT NOT NULL,
        mtime DOUBLE PRECISION NOT NULL,
        sha256 TEXT NOT NULL,
        reason TEXT NOT NULL,
        PRIMARY KEY (base_id, path)
    )""",
)
