"""The local knowledge base: your own documents as a cited, private source.

`KnowledgeBase` is the whole library surface (add, list, remove, search, stats for one named
knowledge base of one owner); the CLI (`sleuth kb ...`), the `kb` search backend and a server's
routes are thin callers of it. Owners keep organisations apart: every store call is scoped to
(owner, name), so one org never sees another's documents.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from ..errors import UnreadableFile, UsageError
from ..settings import database_url, sleuth_home
from .convert import sandboxed_convert
from .documents import Document
from .ingest import AddReport, Converter, Embedder, Ingest, Step, Walk, find_files, hash_bytes
from .query import DenseIndex, KbHit, search, whole
from .sqlite_store import SqliteKnowledgeStore
from .store import DEFAULT_KB, LOCAL_OWNER, DocumentInfo, FileState, KbInfo, KnowledgeStore, Scope

__all__ = [
    "DEFAULT_KB", "LOCAL_OWNER", "AddReport", "DocumentInfo", "KbHit", "KbInfo",
    "KnowledgeBase", "Step", "Walk", "knowledge_bases", "open_store",
]  # fmt: skip

FLAT = Walk()  # the files named and those directly inside the folders named


def upload_name(name: str) -> str:
    """The last part of an uploaded file's name, or UnreadableFile when it names no file:
    `.` and `..` were stored as documents `upload/` and `upload/..` (issue 24), and a
    control or bidi character would reach every listing and terminal that shows the name."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1].strip()
    if base in ("", ".", "..") or any(unicodedata.category(c) in ("Cc", "Cf") for c in base):
        raise UnreadableFile(f"{name[:80]!r} is not a usable file name")
    return base


_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def check_name(name: str, what: str = "knowledge base") -> str:
    if not _NAME.match(name):
        raise UsageError(
            f"{what} name {name!r}: use 1-64 letters, digits, '.', '_' or '-' (not first)"
        )
    return name


def store_path(env: Mapping[str, str] | None = None) -> Path:
    return sleuth_home(env) / "kb.db"


def open_store(env: Mapping[str, str] | None = None) -> KnowledgeStore:
    """The knowledge bases: in the database of SLEUTH_DATABASE_URL when one is set (shared by
    every replica and CLI on it), else in SLEUTH_HOME's kb.db. psycopg is imported only with a
    database URL."""
    url = database_url(env)
    if url is None:
        return SqliteKnowledgeStore(store_path(env))
    from .pg_store import PgKnowledgeStore

    return PgKnowledgeStore(url)


def knowledge_bases(store: KnowledgeStore, owner: str = LOCAL_OWNER) -> list[KbInfo]:
    return store.knowledge_bases(check_name(owner, "owner"))


def _under(path: str, roots: Iterable[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


class KnowledgeBase:
    """One owner's named knowledge base."""

    def __init__(
        self,
        store: KnowledgeStore,
        name: str = DEFAULT_KB,
        owner: str = LOCAL_OWNER,
        embedder: Embedder | None = None,
    ) -> None:
        self.store = store
        self.scope = Scope(check_name(owner, "owner"), check_name(name))
        self.embedder = embedder
        self._dense = DenseIndex()

    def ingest(self, converter: Converter = sandboxed_convert) -> Ingest:
        return Ingest(self.store, self.scope, self.embedder, converter)

    def add(
        self,
        paths: Iterable[str],
        walk: Walk = FLAT,
        progress: Callable[[Step], None] | None = None,
        converter: Converter = sandboxed_convert,
    ) -> AddReport:
        """Index files and folders; unchanged files are not read again, bad ones are skipped."""
        files, unsupported = find_files(paths, walk)
        report = self.ingest(converter).add_files(files, progress)
        report.skipped += [(str(p), f"unsupported file type ({p.suffix or 'no extension'})")
                           for p in unsupported]  # fmt: skip
        return report

    def sync(self, paths: Iterable[str], walk: Walk = FLAT) -> tuple[AddReport, list[str]]:
        """Index what changed under `paths` and forget files that are gone (`kb watch`)."""
        roots = [str(Path(p).expanduser().resolve()) for p in paths]
        report = self.add(roots, walk)
        gone = [
            d.path for d in self.documents() if _under(d.path, roots) and not Path(d.path).exists()
        ]
        self.store.remove(self.scope, gone)
        return report, gone

    def add_upload(self, name: str, data: bytes) -> Document:
        """Index uploaded bytes under `upload/NAME`; the type is decided by content."""
        base = upload_name(name)
        state = FileState(f"upload/{base}", len(data), 0.0, hash_bytes(data))
        return self.ingest().add_bytes(state, data, base)

    def documents(self) -> list[DocumentInfo]:
        return self.store.documents(self.scope)

    def remove(self, paths: Iterable[str]) -> list[str]:
        """Remove documents by path, or every document under a folder path."""
        wanted = [
            p if p.startswith("upload/") else str(Path(p).expanduser().resolve()) for p in paths
        ]
        known = [d.path for d in self.documents()]
        doomed = [k for k in known if _under(k, wanted)]
        unknown = [w for w in wanted if not any(_under(k, [w]) for k in known)]
        if unknown:
            raise UsageError(f"not in knowledge base {self.scope.name!r}: {', '.join(unknown)}")
        self.store.remove(self.scope, doomed)
        return doomed

    def search(self, text: str, limit: int = 10) -> list[KbHit]:
        return search(self.store, self.scope, text, limit, self.embedder, self._dense)

    def whole(self, limit: int) -> list[KbHit] | None:
        """Every section, when the base holds at most `limit` (else None): files few enough
        to read whole when no passage matches a question's words."""
        return whole(self.store, self.scope, limit)

    def stats(self) -> KbInfo:
        for info in self.store.knowledge_bases(self.scope.owner):
            if info.name == self.scope.name:
                return info
        return KbInfo(self.scope.name, 0, 0, 0, 0, 0, None)
