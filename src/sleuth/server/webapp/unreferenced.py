"""The web-app dialect's `enableReferences: false`: a report without its references — no `[n]`
markers in the text streamed while it is written nor in the final report, no source list, and
no `## Citation health` section (it lists sentences by their markers). The run itself is the
same: its citations are still checked and saved; only this rendering leaves them out."""

from __future__ import annotations

import re

from ...pipeline.cite import MARKER

# a marker in any style a writer uses ([1], [1, 3], [2-4]), with the spaces before it
_MARKER = re.compile(r"[ \t]*" + MARKER.pattern)
# what may be the start of a marker at the end of a streamed piece: held for the next piece
_PARTIAL = re.compile(r"[ \t]*(?:\[[\d\s,;\-–—]*)?\Z")
_HEALTH = re.compile(r"\n*^## Citation health\n.*?(?=^## |\Z)", re.DOTALL | re.MULTILINE)


def unmarked(text: str) -> str:
    """`text` without citation markers."""
    return _MARKER.sub("", text)


def report_without_references(report: str) -> str:
    """A final report's markdown without markers and without its citation-health section."""
    return unmarked(_HEALTH.sub("\n\n", report)).rstrip() + "\n"


class StreamUnmarker:
    """Markers taken out of text that arrives in pieces: a piece ending in what may be the
    start of a marker (`Claim [1`) keeps that tail back until the next piece shows it."""

    def __init__(self) -> None:
        self.held = ""

    def feed(self, piece: str) -> str:
        text = self.held + piece
        tail = _PARTIAL.search(text)
        cut = tail.start() if tail is not None else len(text)
        self.held = text[cut:]
        return unmarked(text[:cut])

    def flush(self) -> str:
        text, self.held = self.held, ""
        return unmarked(text)
