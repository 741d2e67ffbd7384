"""The answer as HTML for the page: markdown rendered with raw HTML escaped (the export's
renderer: page text can never become markup), `[n]` markers as links to their source, and
each sentence the citation check found unsupported wrapped in a visible mark."""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from ...export.html import render_answer

OPEN, CLOSE = "\ue000", "\ue001"  # private-use characters: stripped from the text first


def answer_html(
    markdown: str, numbers: set[int], unsupported: Iterable[str] = (), label: str = "unsupported"
) -> str:
    text = markdown.replace(OPEN, "").replace(CLOSE, "")
    for sentence in dict.fromkeys(s.strip() for s in unsupported if s.strip()):
        at = text.find(sentence)
        if at >= 0:
            end = at + len(sentence)
            text = f"{text[:at]}{OPEN}{text[at:end]}{CLOSE}{text[end:]}"
    html, _ = render_answer(text, numbers)
    title = escape(label, quote=True)
    mark = f'<mark class="unsupported" title="{title}">'
    return html.replace(OPEN, mark).replace(CLOSE, "</mark>")
