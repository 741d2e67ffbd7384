"""The knowledge base's storage port: what ingest and search need from a database.

Every call names a `Scope` (owner, knowledge base), so one owner (an org of the HTTP service,
or "local" on the command line) never sees another's documents. `SqliteKnowledgeStore` (a file
under SLEUTH_HOME) and `PgKnowledgeStore` (SLEUTH_DATABASE_URL, shared by replicas) implement
it; ingest and search do not know which one they have.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from .documents import Document

LOCAL_OWNER = "local"
DEFAULT_KB = "default"


@dataclass(frozen=True, slots=True)
class Scope:
    owner: str
    name: str


@dataclass(frozen=True, slots=True)
class FileState:
    """What decides that a file is unchanged: same size and mtime, or failing that, same hash."""

    path: str
    size: int
    mtime: float
    sha256: str


@dataclass(frozen=True, slots=True)
class Chunk:
    """A passage of one section; `start` is its offset in the section's text."""

    section: int  # index into the document's sections
    start: int
    text: str
    vector: bytes | None = None  # float32 embedding, when an embedder is configured


@dataclass(frozen=True, slots=True)
class IndexedDocument:
    state: FileState
    document: Document
    chunks: tuple[Chunk, ...]


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    path: str
    title: str
    kind: str
    sections: int
    chars: int
    size: int
    added_at: str


@dataclass(frozen=True, slots=True)
class KbInfo:
    name: str
    documents: int
    sections: int
    chunks: int
    chars: int
    vectors: int
    updated_at: str | None


@dataclass(frozen=True, slots=True)
class ChunkHit:
    chunk_id: int
    section_id: int
    score: float  # higher is better


@dataclass(frozen=True, slots=True)
class SectionRecord:
    id: int
    path: str
    title: str
    kind: str
    location: str
    anchor: str
    text: str
    published: str | None
    mtime: float


class KnowledgeStore(Protocol):
    def file_state(self, scope: Scope, path: str) -> FileState | None: ...

    def skipped_state(self, scope: Scope, path: str) -> tuple[FileState, str] | None:
        """The state and reason of a file skipped before, so an unchanged bad file is not
        converted again on every `kb add`."""
        ...

    def mark_skipped(self, scope: Scope, state: FileState, reason: str) -> None: ...

    def touch(self, scope: Scope, state: FileState) -> None:
        """Record a new mtime for a file whose content (hash) did not change."""
        ...

    def put(self, scope: Scope, doc: IndexedDocument) -> None:
        """Add or replace one file, all of it or none of it."""
        ...

    def remove(self, scope: Scope, paths: Sequence[str]) -> int: ...

    def drop(self, scope: Scope) -> int: ...

    def documents(self, scope: Scope) -> list[DocumentInfo]: ...

    def knowledge_bases(self, owner: str) -> list[KbInfo]: ...

    def match(self, scope: Scope, query: str, limit: int) -> list[ChunkHit]:
        """Best chunks for a full-text query (BM25), best first."""
        ...

    def vectors(self, scope: Scope) -> tuple[list[tuple[int, int]], bytes]:
        """(chunk id, section id) of every embedded chunk and their float32 vectors, in order."""
        ...

    def vectors_version(self, scope: Scope) -> tuple[int, int]:
        """Changes whenever `vectors` would: lets a searcher cache its matrix."""
        ...

    def sections(self, ids: Sequence[int]) -> dict[int, SectionRecord]: ...

    def section_ids(self, scope: Scope, limit: int) -> list[int]:
        """The first `limit` sections of a knowledge base, by path and place in the file."""
        ...

    def close(self) -> None: ...
