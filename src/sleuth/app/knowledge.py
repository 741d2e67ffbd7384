"""Knowledge-base use cases scoped to an owner: the service's organization, or `local` on the
command line. One owner never sees, searches or removes another's documents; the store does the
scoping (every call names owner and knowledge base), this module only keeps the calls off the
event loop and opens the store per call, so nothing is held between requests."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from ..errors import UnreadableFile, UsageError
from ..kb import KnowledgeBase, knowledge_bases, open_store, upload_name
from ..kb.store import DocumentInfo, KbInfo

MAX_UPLOAD_BYTES = 20_000_000
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Uploaded:
    path: str  # how the document is known (and cited): upload/NAME
    title: str
    kind: str  # the type its content says it is
    sections: int


class Knowledge:
    def __init__(self, env: Mapping[str, str]) -> None:
        self._env = dict(env)

    def _run(self, owner: str, name: str, use: Callable[[KnowledgeBase], T]) -> T:
        store = open_store(self._env)
        try:
            return use(KnowledgeBase(store, name, owner))
        finally:
            store.close()

    async def upload(self, owner: str, name: str, filename: str, data: bytes) -> Uploaded:
        """Index uploaded bytes; their type is decided by content. A file that cannot be read
        is a UsageError with the reason (400 in the API)."""
        if len(data) > MAX_UPLOAD_BYTES:
            raise UsageError(f"the file is larger than {MAX_UPLOAD_BYTES // 1_000_000} MB")

        def add(kb: KnowledgeBase) -> Uploaded:
            try:
                document = kb.add_upload(filename, data)
            except UnreadableFile as exc:
                raise UsageError(f"{filename}: {exc.reason}", setting="file") from None
            path = f"upload/{upload_name(filename)}"
            return Uploaded(path, document.title, document.kind, len(document.sections))

        return await asyncio.to_thread(self._run, owner, name, add)

    async def documents(self, owner: str, name: str) -> list[DocumentInfo]:
        return await asyncio.to_thread(self._run, owner, name, lambda kb: kb.documents())

    async def remove(self, owner: str, name: str, path: str) -> list[str]:
        return await asyncio.to_thread(self._run, owner, name, lambda kb: kb.remove([path]))

    async def bases(self, owner: str) -> list[KbInfo]:
        def listing() -> list[KbInfo]:
            store = open_store(self._env)
            try:
                return knowledge_bases(store, owner)
            finally:
                store.close()

        return await asyncio.to_thread(listing)
