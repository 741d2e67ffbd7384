"""Adding files to a knowledge base: walk, skip what is unchanged, convert, chunk, store.

A file is unchanged when its size and mtime match what was stored (nothing is read), or when
its content hash does (only the mtime is updated): either way nothing is extracted. A changed
file is re-indexed whole. Each file is committed on its own, so a batch interrupted at file
5,000 of 10,000 resumes where it stopped when run again, and a file that cannot be read is
reported with its reason and skipped; a batch never dies on one file.
"""

from __future__ import annotations

import fnmatch
import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from ..errors import UnreadableFile, UsageError
from ..text.passages import split_passages
from .convert import SUFFIXES, convert
from .documents import Document
from .store import Chunk, FileState, IndexedDocument, KnowledgeStore, Scope

MAX_FILE_BYTES = 50_000_000
Outcome = Literal["added", "updated", "unchanged", "skipped"]
Converter = Callable[[bytes, str], Document]


class Embedder(Protocol):
    """Turns passages and queries into vectors (kb.embed; optional, `sleuth[embed]`)."""

    name: str

    def passages(self, texts: Sequence[str]) -> list[bytes]: ...

    def query(self, text: str) -> bytes: ...


@dataclass(frozen=True, slots=True)
class Step:
    """One file done: what happened to it, for a progress display."""

    done: int
    total: int
    path: str
    outcome: Outcome
    reason: str = ""


@dataclass(slots=True)
class AddReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)

    def record(self, path: str, outcome: Outcome, reason: str = "") -> None:
        if outcome == "skipped":
            self.skipped.append((path, reason))
        else:
            getattr(self, outcome).append(path)


@dataclass(frozen=True, slots=True)
class Walk:
    recursive: bool = False
    glob: str | None = None  # e.g. "*.pdf"; applies to files found in directories


def find_files(paths: Iterable[str], walk: Walk | None = None) -> tuple[list[Path], list[Path]]:
    """(files to add, files of an unsupported type found in folders). Files named outright are
    always added (their content decides the type); a path that does not exist is a usage error,
    raised before anything is indexed."""
    walk = walk or Walk()
    found: list[Path] = []
    unsupported: list[Path] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if not path.exists():
            raise UsageError(f"no such file or directory: {raw}")
        if not path.is_dir():
            found.append(path)
            continue
        for p in _in_directory(path, walk):
            (
                found if walk.glob is not None or p.suffix.lower() in SUFFIXES else unsupported
            ).append(p)
    unique = list(dict.fromkeys(p.resolve() for p in found))
    return unique, list(dict.fromkeys(p.resolve() for p in unsupported))


def _in_directory(folder: Path, walk: Walk) -> Iterator[Path]:
    entries = folder.rglob("*") if walk.recursive else folder.iterdir()
    for p in sorted(entries):
        if not p.is_file() or p.name.startswith("."):
            continue
        if walk.glob is None or fnmatch.fnmatch(p.name, walk.glob):
            yield p


def hash_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(slots=True)
class Ingest:
    """Adds files to one knowledge base. `convert` is injectable: tests count extractions."""

    store: KnowledgeStore
    scope: Scope
    embedder: Embedder | None = None
    convert: Converter = convert
    max_bytes: int = MAX_FILE_BYTES

    def add_files(
        self, files: Sequence[Path], progress: Callable[[Step], None] | None = None
    ) -> AddReport:
        report = AddReport()
        for done, path in enumerate(files, 1):
            outcome, reason = self.add_file(path)
            report.record(str(path), outcome, reason)
            if progress is not None:
                progress(Step(done, len(files), str(path), outcome, reason))
        return report

    def add_file(self, path: Path) -> tuple[Outcome, str]:
        try:
            stat = path.stat()
            known = self.store.file_state(self.scope, str(path))
            if known and (known.size, known.mtime) == (stat.st_size, stat.st_mtime):
                return "unchanged", ""
            bad = self.store.skipped_state(self.scope, str(path))
            if bad and (bad[0].size, bad[0].mtime) == (stat.st_size, stat.st_mtime):
                return "skipped", bad[1]
            if stat.st_size > self.max_bytes:
                raise UnreadableFile(f"larger than {self.max_bytes // 1_000_000} MB")
            data = path.read_bytes()
        except OSError as exc:
            return "skipped", f"cannot read: {exc.strerror or exc}"
        except UnreadableFile as exc:
            return "skipped", exc.reason
        state = FileState(str(path), stat.st_size, stat.st_mtime, hash_bytes(data))
        if known and known.sha256 == state.sha256:
            self.store.touch(self.scope, state)
            return "unchanged", ""
        try:
            self.add_bytes(state, data, path.name)
        except UnreadableFile as exc:
            if exc.lasting:
                self.store.mark_skipped(self.scope, state, exc.reason)
            return "skipped", exc.reason
        return ("updated" if known else "added"), ""

    def add_bytes(self, state: FileState, data: bytes, name: str) -> Document:
        """Convert and store one file's content (an upload has no file: `state` names it)."""
        if len(data) > self.max_bytes:
            raise UnreadableFile(f"larger than {self.max_bytes // 1_000_000} MB")
        document = self.convert(data, name)
        chunks = chunk_document(document)
        if self.embedder is not None and chunks:
            vectors = self.embedder.passages([f"{document.title}. {c.text}" for c in chunks])
            chunks = [
                Chunk(c.section, c.start, c.text, vector)
                for c, vector in zip(chunks, vectors, strict=True)
            ]
        self.store.put(self.scope, IndexedDocument(state, document, tuple(chunks)))
        return document


def chunk_document(document: Document) -> list[Chunk]:
    """Passages of every section, the same split a run uses for pages (text.passages)."""
    return [
        Chunk(index, piece.start, piece.text)
        for index, section in enumerate(document.sections)
        for piece in split_passages(section.text)
    ]
