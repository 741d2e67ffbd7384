"""A saved session as cited markdown: the answer, then a numbered `## Sources` list."""

from __future__ import annotations

import json

from ..store.records import SessionRecord
from ..text.display import escape_html_tags, terminal_safe
from ..types import Figure, Result, Source
from .figures import placed


def _escape_label(text: str) -> str:
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def source_line(source: Source, cited: bool = True) -> str:
    """`n. [title](url) — fetched YYYY-MM-DD · published YYYY-MM-DD · authority`, and
    `(not cited)` for a source the writer was given but did not cite."""
    title = escape_html_tags(_escape_label(" ".join((source.title or source.url).split())))
    url = source.url.replace(" ", "%20").replace(")", "%29")
    notes = [source.location] if source.location else []
    notes += [f"fetched {source.fetched_at[:10]}"] if source.fetched_at else []
    if source.published:
        notes.append(f"published {source.published[:10]}")
    notes.append(source.authority)
    if source.snippet:
        notes.append("snippet only")
    mark = "" if cited else " (not cited)"
    return f"{source.number}. [{title}]({url}) — {' · '.join(notes)}{mark}"


def render_markdown(record: SessionRecord, heading: bool = True) -> str:
    """The answer as saved, with its sources listed; a `# question` title when `heading`.

    Raw HTML that came from a page or the model is made inert and terminal control sequences
    removed: the file will be opened in markdown viewers and printed by `cat`."""
    return result_markdown(record.result, question=record.question if heading else None)


def result_markdown(
    result: Result, references: bool = True, question: str | None = None, grade: bool = False
) -> str:
    """A result's answer (or its filled schema as pretty JSON) under `question` as a heading
    when given, then (with `grade`) its confidence and the first reason for it, then its
    numbered `## Sources` list (uncited ones marked) unless `references` is false: what `ask`
    prints, `show`/`export --format=md` reprint, and the SSE report and the MCP tool's text
    (graded) carry."""
    if result.data is not None and not result.answer:
        body = "```json\n" + json.dumps(result.data, indent=2, ensure_ascii=False) + "\n```"
    else:
        answer = (result.answer or "").strip()
        body = escape_html_tags(placed(answer, result.images, figure_markdown))
    heading = escape_html_tags(_one_line(question)) if question else ""
    parts = [f"# {heading}"] if heading and not body.startswith("# ") else []
    parts.append(body)
    if grade and result.answer:
        why = f": {result.confidence_reasons[0]}" if result.confidence_reasons else ""
        parts.append(f"Confidence: {result.confidence}{why}.")
    if references and result.sources:
        parts.append(sources_markdown(result))
    return terminal_safe("\n\n".join(parts) + "\n")


def figure_markdown(index: int, figure: Figure) -> str:
    """An image as markdown: `![alt](url)` and its caption with the source it is from. A
    viewer of the markdown loads it from its own host (it was public, and an image of the
    checked type and size, when the run downloaded it)."""
    alt = _escape_label(" ".join(figure.alt.split()) or "image")
    url = figure.url.replace(" ", "%20").replace(")", "%29")
    words = " ".join((figure.caption or figure.alt).split())
    return f"![{alt}]({url})\n*{_escape_label(words)}* [{figure.number}]"


def sources_markdown(result: Result) -> str:
    """`## Sources` and one line per source; uncited ones marked."""
    cited = {c.number for c in result.citations}
    lines = (source_line(s, s.number in cited) for s in result.sources)
    return "## Sources\n\n" + "\n".join(lines)


def _one_line(text: str) -> str:
    return " ".join(text.split())
