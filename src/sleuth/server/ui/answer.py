"""The answer as HTML for the page: markdown rendered with raw HTML escaped (the export's
renderer: page text can never become markup), `[n]` markers as links to their source, and
each sentence the citation check found unsupported wrapped in a visible mark."""

from __future__ import annotations

import re
from collections.abc import Iterable
from html import escape

from ...export.html import render_answer

OPEN, CLOSE = "\ue000", "\ue001"  # private-use characters: stripped from the text first
# A citation marker with the space before it: the check reports sentences without them.
MARKER = re.compile(r"\s*\[\d+(?:\s*[,\-–]\s*\d+)*\]")


def _without_markers(text: str) -> tuple[str, list[int]]:
    """`text` with its markers removed, and each kept character's index in `text`."""
    kept: list[int] = []
    pos = 0
    for match in MARKER.finditer(text):
        kept.extend(range(pos, match.start()))
        pos = match.end()
    kept.extend(range(pos, len(text)))
    return "".join(text[i] for i in kept), kept


def _span(text: str, sentence: str) -> tuple[int, int] | None:
    """Where `sentence` (as the citation check words it) is in `text`, markers included."""
    plain, index = _without_markers(text)
    at = plain.find(sentence)
    if at < 0:
        return None
    return index[at], index[at + len(sentence) - 1] + 1


def answer_html(
    markdown: str, numbers: set[int], unsupported: Iterable[str] = (), label: str = "unsupported"
) -> str:
    text = markdown.replace(OPEN, "").replace(CLOSE, "")
    for sentence in dict.fromkeys(s.strip() for s in unsupported if s.strip()):
        span = _span(text, sentence)
        if span is not None:
            at, end = span
            text = f"{text[:at]}{OPEN}{text[at:end]}{CLOSE}{text[end:]}"
    html, _ = render_answer(text, numbers)
    title = escape(label, quote=True)
    mark = f'<mark class="unsupported" title="{title}">'
    return html.replace(OPEN, mark).replace(CLOSE, "</mark>")
