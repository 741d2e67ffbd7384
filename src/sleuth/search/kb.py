"""`kb[:NAME]`: search a local knowledge base (`sleuth kb add`), with no network at all.

Hits are sections of your documents (a PDF page, a slide, rows of a sheet) returned already
read, with `file://` URLs and their location, so the engine never fetches them, cites them with
the lowest numbers and exempts them from the per-site cap, as it does for `--include` files.
The `kb_hybrid` setting fuses BM25 with local embeddings (needs `sleuth[embed]`).
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..ports import SearchBackend, SearchQuery
from ..registry import BackendSettings, Registries
from ..types import Page, SearchResult

if TYPE_CHECKING:  # the knowledge-base package loads when a kb backend is built, not at start-up
    from ..kb import KbHit, KnowledgeBase
    from ..kb.ingest import Embedder

CONTENT_TYPES = {
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "csv": "text/csv",
    "html": "text/html",
    "markdown": "text/markdown",
    "epub": "application/epub+zip",
}
SNIPPET_CHARS = 300


class KbSearch:
    """A search backend over one knowledge base."""

    private = True  # nothing leaves the machine: queries may carry private words

    def __init__(self, kb: KnowledgeBase, name: str = "kb") -> None:
        self.kb = kb
        self.name = name

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        hits = await asyncio.to_thread(self.kb.search, query.text, query.limit)
        return [hit_result(hit, rank, self.name) for rank, hit in enumerate(hits, start=1)]

    async def aclose(self) -> None:
        self.kb.store.close()


def hit_result(hit: KbHit, rank: int, backend: str) -> SearchResult:
    """A knowledge-base hit as a pre-read search result: the engine reads nothing for it."""
    fetched = datetime.fromtimestamp(hit.modified, UTC).isoformat(timespec="seconds")
    page = Page(
        url=hit.url,
        title=hit.title,
        text=hit.text,
        fetched_at=fetched,
        content_type=CONTENT_TYPES.get(hit.kind, "text/plain"),
        published=hit.published,
        location=hit.location or None,
    )
    snippet = " ".join(hit.text[: SNIPPET_CHARS * 2].split())[:SNIPPET_CHARS]
    return SearchResult(hit.url, hit.title, snippet, backend, rank, hit.published, page)


def embedder_for(settings: BackendSettings) -> Embedder | None:
    if not settings.extra.get("kb_hybrid", False):
        return None
    from ..kb.embed import E5Embedder

    return E5Embedder()


def build(settings: BackendSettings, regs: Registries) -> SearchBackend:
    from ..kb import DEFAULT_KB, LOCAL_OWNER, KnowledgeBase, open_store

    name = settings.option or str(settings.extra.get("kb") or DEFAULT_KB)
    owner = str(settings.extra.get("kb_owner") or LOCAL_OWNER)
    store = open_store(settings.env)
    kb = KnowledgeBase(store, name, owner, embedder=embedder_for(settings))
    if kb.stats().documents == 0:
        kb.store.close()
        raise UsageError(
            f"knowledge base {name!r} is empty or does not exist: add files with "
            f"`sleuth kb add PATH --kb {name}` (see `sleuth kb ls`)"
        )
    return KbSearch(kb)


def register(regs: Registries) -> None:
    regs.search.register(
        "kb", build, summary="your knowledge base (sleuth kb add): kb or kb:NAME", offline=True
    )
