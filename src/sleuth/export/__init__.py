"""Saved sessions rendered for people: a self-contained HTML report, cited markdown, JSON."""

from __future__ import annotations

import json
from pathlib import PurePath
from typing import Literal

from ..errors import UsageError
from ..store.codec import result_to_json
from ..store.records import SessionRecord
from .markdown import render_markdown

ExportFormat = Literal["html", "md", "json"]
FORMATS: tuple[ExportFormat, ...] = ("html", "md", "json")
_EXTENSIONS: dict[str, ExportFormat] = {
    ".html": "html", ".htm": "html", ".md": "md", ".markdown": "md", ".txt": "md",
    ".json": "json",
}  # fmt: skip


def format_for(path: str) -> ExportFormat | None:
    """The export format a file name implies, if any (`.txt` is markdown: cited plain text)."""
    lowered = path.lower()
    return next((fmt for ext, fmt in _EXTENSIONS.items() if lowered.endswith(ext)), None)


def choose_format(fmt: str | None, path: PurePath | None) -> ExportFormat:
    """The format to write: the one asked for, else the file name's, else html. A name whose
    suffix says another format than the one asked for, or a suffix no format has, is refused
    rather than filled with the wrong bytes (`report.txt` full of HTML)."""
    implied = format_for(path.name) if path is not None else None
    asked = next((f for f in FORMATS if f == fmt), None)
    if fmt is not None and asked is None:
        raise UsageError(f"unknown export format {fmt!r}; choose html, md or json")
    if asked is not None and implied is not None and asked != implied:
        raise UsageError(
            f"{path}: the name says {implied} but the format asked for is {asked}; "
            "change the name or the format"
        )
    if asked is None and implied is None and path is not None and path.suffix:
        names = ", ".join(sorted(_EXTENSIONS))
        raise UsageError(
            f"{path}: no export format is written as {path.suffix}; name the file "
            f"with one of {names}, or give the format (html, md, json)"
        )
    return asked or implied or "html"


def render_json(record: SessionRecord) -> str:
    """The session as JSON: the result (without source texts) plus the run's record."""
    data = {
        "id": record.id,
        "created_at": record.created_at,
        "question": record.question,
        "tags": list(record.tags),
        "parent_id": record.parent_id,
        "models": list(record.models),
        "options": record.options,
        "plan": list(record.plan),
        "rounds": list(record.rounds),
        "result": result_to_json(record.result, with_text=False),
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def render_html(record: SessionRecord) -> str:
    """The self-contained HTML report (markdown-it loads here, only when a report is made)."""
    from .html import render_html as html

    return html(record)


def render(record: SessionRecord, fmt: str) -> str:
    if fmt == "html":
        return render_html(record)
    if fmt == "md":
        return render_markdown(record)
    if fmt == "json":
        return render_json(record)
    raise UsageError(f"unknown export format {fmt!r}; choose html, md or json")


__all__ = [
    "FORMATS",
    "choose_format",
    "format_for",
    "render",
    "render_html",
    "render_json",
    "render_markdown",
]
