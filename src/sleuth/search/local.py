"""`local`: the files given with `--include`, as a one-off in-memory knowledge base.

The same converters, sections and ranking as `sleuth kb` (every type it reads, page and slide
locations in citations), built fresh in memory for one run: nothing is stored. A missing path
or a named file of an unsupported type is a usage error; a file that cannot be read (corrupt,
encrypted, empty, misnamed) is skipped and reported as a notice with the first search, so one
bad file in a folder does not stop the run.

Files that are all a run reads (`--search=none`) are where the user means the answer to be, so
a question that shares no word with them ("daily food allowance on trips" of "Meals during
travel are reimbursed up to $75 per day") does not end the run with "no results": when no
passage matches and the files hold no more sections than a search returns, every section is
returned, and the reader judges them. Beside a web search they are not: files that match
nothing would be kept as sources of a web answer.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from functools import partial

from ..errors import UsageError
from ..events import Notice
from ..ports import SearchQuery
from ..registry import BackendSettings, Registries
from ..types import SearchResult
from .kb import KbSearch, hit_result

# The knowledge-base package (converters, store) is imported when `local` is built: a run
# without --include never pays for it.


@dataclass(slots=True)
class LocalSearch:
    backend: KbSearch
    skipped: list[tuple[str, str]] = field(default_factory=list)
    alone: bool = False  # the files are all the run reads (--search=none)
    read_whole: bool = False  # the files were read whole once: said in one notice
    name: str = "local"
    private: bool = True  # nothing leaves the machine: queries may carry private words

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        while self.skipped:
            path, reason = self.skipped.pop(0)
            query.report(Notice(f"--include: skipped {path}: {reason}"))
        found = await self.backend.search(query)
        if found or not self.alone:
            return found
        hits = await asyncio.to_thread(self.backend.kb.whole, query.limit)
        if not hits:
            return []
        if not self.read_whole:
            self.read_whole = True
            files = len({hit.path for hit in hits})
            which = "the file" if files == 1 else f"all {files} files"
            sections = f"{len(hits)} section{'s' * (len(hits) != 1)}"
            words = "no passage matches the question's words"
            query.report(Notice(f"--include: {words}; reading {which} ({sections})"))
        return [hit_result(hit, rank, self.name) for rank, hit in enumerate(hits, start=1)]

    async def aclose(self) -> None:
        await self.backend.aclose()


def check_types(paths: tuple[str, ...]) -> None:
    from ..kb.convert import SUFFIXES
    from ..kb.ingest import find_files

    for path in find_files(paths)[0]:
        if path.suffix.lower() not in SUFFIXES:
            raise UsageError(
                f"--include: unsupported file type {path.suffix or '(none)'}: {path} "
                f"(use {', '.join(sorted(set(SUFFIXES)))})"
            )


def build(settings: BackendSettings, regs: Registries) -> LocalSearch:
    try:
        check_types(settings.include)
    except UsageError as exc:
        message = str(exc) if str(exc).startswith("--include") else f"--include: {exc}"
        raise UsageError(message) from None
    from ..kb import KnowledgeBase, Walk
    from ..kb.convert import sandboxed_convert
    from ..kb.sqlite_store import SqliteKnowledgeStore

    kb = KnowledgeBase(SqliteKnowledgeStore(":memory:"), "include")
    # In the extraction sandbox, as `kb add` converts: an included PDF can be as hostile as a
    # page (one inflating to 500 MB aborted the whole run inside PDFium).
    pages = partial(sandboxed_convert, pdf_max_pages=settings.pdf_max_pages)
    report = kb.add(settings.include, Walk(), converter=pages)
    alone = bool(settings.extra.get("include_alone", False))
    return LocalSearch(KbSearch(kb, "local"), list(report.skipped), alone)


def register(regs: Registries) -> None:
    regs.search.register("local", build, summary="the files given with --include", offline=True)
