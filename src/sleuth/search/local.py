"""`local`: the files given with `--include`, searched like a tiny web.

Paths are files or directories (one level deep) of .md, .txt, .html and .pdf. Files are read
once when the backend is built (a missing or unreadable path is a usage error, not a silent
skip) and returned as pre-read results with `file://` URLs, so the engine never fetches them.

A named path must be a regular file (a FIFO or `/dev/zero` is refused, never read); inside a
named directory, entries that are not regular files, and symlinks that lead out of the
directory, are passed over. Files are capped in size one by one and together, and parsed in the
extraction sandbox like any web page.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from ..disk.read import inside, is_regular, read_regular
from ..errors import FetchError, UsageError
from ..fetch.extract import Extracted
from ..ports import SearchQuery
from ..registry import BackendSettings, Registries
from ..text.passages import bm25_scores
from ..types import Page, SearchResult

SUFFIXES = (".md", ".markdown", ".txt", ".html", ".htm", ".pdf")
MAX_FILE_BYTES = 20_000_000
MAX_TOTAL_BYTES = 200_000_000
PARSED = {".pdf": "application/pdf", ".html": "text/html", ".htm": "text/html"}


def expand_paths(paths: tuple[str, ...]) -> list[Path]:
    files: list[Path] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if not path.exists():
            raise UsageError(f"--include: no such file or directory: {raw}")
        if path.is_dir():
            files.extend(_directory_files(path))
        elif path.suffix.lower() in SUFFIXES:
            files.append(path)
        else:
            raise UsageError(
                f"--include: unsupported file type {path.suffix or '(none)'}: {raw} "
                f"(use {', '.join(SUFFIXES)})"
            )
    return list(dict.fromkeys(p.resolve() for p in files))


def _directory_files(root: Path) -> list[Path]:
    """Regular files of a supported type directly in `root`, not leading out of it."""
    return sorted(
        p
        for p in root.iterdir()
        if p.suffix.lower() in SUFFIXES and is_regular(p) and inside(p, root)
    )


def read_files(paths: list[Path]) -> list[Page]:
    pages: list[Page] = []
    total = 0
    for path in paths:
        page, size = read_file(path)
        total += size
        if total > MAX_TOTAL_BYTES:
            raise UsageError(
                f"--include: more than {MAX_TOTAL_BYTES // 1_000_000} MB of files; include fewer"
            )
        pages.append(page)
    return pages


def read_file(path: Path) -> tuple[Page, int]:
    """The file as a Page, and its size in bytes."""
    from ..fetch.sandbox import shared_sandbox

    data = read_regular(path, MAX_FILE_BYTES, "--include")
    suffix = path.suffix.lower()
    fetched = datetime.fromtimestamp(path.stat().st_mtime, UTC).isoformat(timespec="seconds")
    try:
        if suffix in PARSED:
            ex = shared_sandbox().run_sync(extract_local, data, suffix, path.as_uri())
        else:  # plain text needs no parser, and so no worker
            ex = extract_local(data, suffix, path.as_uri())
    except FetchError as exc:
        raise UsageError(f"--include: cannot read {path}: {exc.reason}") from exc
    title, text = ex.title or (path.stem if suffix not in PARSED else ""), ex.text
    page = Page(
        url=path.as_uri(),
        title=title or path.name,
        text=text,
        fetched_at=fetched,
        content_type=PARSED.get(suffix, "text/plain"),
    )
    return page, len(data)


def extract_local(data: bytes, suffix: str, uri: str) -> Extracted:
    """Text and title of a local file's bytes; runs inside a sandbox worker."""
    from ..fetch.extract import extract_html
    from ..fetch.pdf import extract_pdf

    if suffix == ".pdf":
        return extract_pdf(data)
    text = data.decode("utf-8", errors="replace")
    if suffix in (".html", ".htm"):
        return extract_html(text, uri)
    return Extracted(_markdown_title(text), text, None)


def _markdown_title(text: str) -> str:
    for line in text.splitlines()[:20]:
        if line.startswith("# "):
            return line[2:].strip()
    return ""


class LocalSearch:
    name = "local"
    private = True  # nothing leaves the machine: queries may carry private words

    def __init__(self, pages: list[Page]) -> None:
        self.pages = pages

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        scores = bm25_scores(
            query.text, [p.text for p in self.pages], [p.title for p in self.pages]
        )
        ranked = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: -scores[i])
        return [
            SearchResult(
                url=self.pages[i].url,
                title=self.pages[i].title,
                snippet=self.pages[i].text[:300],
                backend=self.name,
                rank=r,
                page=self.pages[i],
            )
            for r, i in enumerate(ranked[: query.limit], start=1)
        ]


def build(settings: BackendSettings, regs: Registries) -> LocalSearch:
    return LocalSearch(read_files(expand_paths(settings.include)))


def register(regs: Registries) -> None:
    regs.search.register("local", build, summary="the files given with --include")
