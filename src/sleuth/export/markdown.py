"""A saved session as cited markdown: the answer, then a numbered `## Sources` list."""

from __future__ import annotations

import json

from ..store.records import SessionRecord
from ..text.display import escape_html_tags, terminal_safe
from ..types import Result, Source


def _escape_label(text: str) -> str:
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def source_line(source: Source) -> str:
    """`n. [title](url) — fetched YYYY-MM-DD · published YYYY-MM-DD · authority`."""
    title = escape_html_tags(_escape_label(" ".join((source.title or source.url).split())))
    url = source.url.replace(" ", "%20").replace(")", "%29")
    notes = [source.location] if source.location else []
    notes += [f"fetched {source.fetched_at[:10]}"] if source.fetched_at else []
    if source.published:
        notes.append(f"published {source.published[:10]}")
    notes.append(source.authority)
    if source.snippet:
        notes.append("snippet only")
    return f"{source.number}. [{title}]({url}) — {' · '.join(notes)}"


def render_markdown(record: SessionRecord, heading: bool = True) -> str:
    """The answer as saved, with its sources listed; a `# question` title when `heading`.

    Raw HTML that came from a page or the model is made inert and terminal control sequences
    removed: the file will be opened in markdown viewers and printed by `cat`."""
    parts = [f"# {escape_html_tags(' '.join(record.question.split()))}"] if heading else []
    return terminal_safe("\n\n".join([*parts, result_markdown(record.result)]))


def result_markdown(result: Result, references: bool = True) -> str:
    """A result's answer (or its filled schema as JSON), then its numbered `## Sources` list
    unless `references` is false: what the SSE report and the MCP tool's text carry."""
    if result.data is not None and not result.answer:
        body = "```json\n" + json.dumps(result.data, indent=2, ensure_ascii=False) + "\n```"
    else:
        body = escape_html_tags((result.answer or "").strip())
    parts = [body]
    if references and result.sources:
        parts.append("## Sources\n\n" + "\n".join(source_line(s) for s in result.sources))
    return terminal_safe("\n\n".join(parts) + "\n")
