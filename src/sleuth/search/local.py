"""`local`: the files given with `--include`, searched like a tiny web.

Paths are files or directories (one level deep) of .md, .txt, .html and .pdf. Files are read
once when the backend is built (a missing or unreadable path is a usage error, not a silent
skip) and returned as pre-read results with `file://` URLs, so the engine never fetches them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from ..errors import UsageError
from ..ports import SearchQuery
from ..registry import BackendSettings, Registries
from ..text.passages import bm25_scores
from ..types import Page, SearchResult

SUFFIXES = (".md", ".markdown", ".txt", ".html", ".htm", ".pdf")
MAX_FILE_BYTES = 20_000_000


def expand_paths(paths: tuple[str, ...]) -> list[Path]:
    files: list[Path] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if not path.exists():
            raise UsageError(f"--include: no such file or directory: {raw}")
        if path.is_dir():
            files.extend(
                sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in SUFFIXES)
            )
        elif path.suffix.lower() in SUFFIXES:
            files.append(path)
        else:
            raise UsageError(
                f"--include: unsupported file type {path.suffix or '(none)'}: {raw} "
                f"(use {', '.join(SUFFIXES)})"
            )
    return list(dict.fromkeys(p.resolve() for p in files))


def read_file(path: Path, pdf_max_pages: int = 50) -> Page:
    from ..fetch.extract import extract_html
    from ..fetch.pdf import extract_pdf

    if path.stat().st_size > MAX_FILE_BYTES:
        raise UsageError(f"--include: {path} is larger than {MAX_FILE_BYTES // 1_000_000} MB")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"--include: cannot read {path}: {exc.strerror}") from exc
    suffix = path.suffix.lower()
    fetched = datetime.fromtimestamp(path.stat().st_mtime, UTC).isoformat(timespec="seconds")
    if suffix == ".pdf":
        ex = extract_pdf(data, max_pages=pdf_max_pages)
        title, text, kind = ex.title, ex.text, "application/pdf"
    elif suffix in (".html", ".htm"):
        ex = extract_html(data.decode("utf-8", errors="replace"), path.as_uri())
        title, text, kind = ex.title, ex.text, "text/html"
    else:
        text = data.decode("utf-8", errors="replace")
        title, kind = _markdown_title(text) or path.stem, "text/plain"
    return Page(
        url=path.as_uri(),
        title=title or path.name,
        text=text,
        fetched_at=fetched,
        content_type=kind,
    )


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
    pages = settings.pdf_max_pages
    return LocalSearch([read_file(p, pages) for p in expand_paths(settings.include)])


def register(regs: Registries) -> None:
    regs.search.register("local", build, summary="the files given with --include")
