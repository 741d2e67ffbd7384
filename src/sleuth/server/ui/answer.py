"""The answer as HTML for the page: markdown rendered with raw HTML escaped (the export's
renderer: page text can never become markup), `[n]` markers as links to their source, and
each sentence the citation check found unsupported wrapped in a visible mark. A run's images
follow the blocks of the sentences they illustrate, as `data:` URIs of the bytes checked when
the run downloaded them: the reader's browser never asks an image's host for anything."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape

from ...export.figures import span
from ...export.html import render_answer
from ...types import Figure

OPEN, CLOSE = "\ue000", "\ue001"  # private-use characters: stripped from the text first


def answer_html(
    markdown: str,
    numbers: set[int],
    unsupported: Iterable[str] = (),
    label: str = "unsupported",
    figures: Sequence[Figure] = (),
) -> str:
    text = markdown.replace(OPEN, "").replace(CLOSE, "")
    for sentence in dict.fromkeys(s.strip() for s in unsupported if s.strip()):
        found = span(text, sentence)
        if found is not None:
            at, end = found
            text = f"{text[:at]}{OPEN}{text[at:end]}{CLOSE}{text[end:]}"
    html, _ = render_answer(text, numbers, figures)
    title = escape(label, quote=True)
    mark = f'<mark class="unsupported" title="{title}">'
    return html.replace(OPEN, mark).replace(CLOSE, "</mark>")
