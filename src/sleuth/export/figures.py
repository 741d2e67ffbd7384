"""Where a report's images go: after the block (paragraph, list, table) holding the sentence
each illustrates, found in the answer as the citation check words it (markers left out).

`placed` puts a block of text for each figure there; the markdown report uses it for
`![alt](url)` lines, the HTML renderers for placeholders they swap for `<figure>` elements
after rendering (markdown never sees an image's URL or words as markup).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..types import Figure

# A citation marker with the space before it: the check reports sentences without them.
MARKER = re.compile(r"\s*\[\d+(?:\s*[,\-–]\s*\d+)*\]")
PLACEHOLDER = re.compile("<p>\ue002(\\d+)\ue003</p>\n?")
BLOCK_END = re.compile(r"\n[ \t]*\n")


def without_markers(text: str) -> tuple[str, list[int]]:
    """`text` with its markers removed, and each kept character's index in `text`."""
    kept: list[int] = []
    pos = 0
    for match in MARKER.finditer(text):
        kept.extend(range(pos, match.start()))
        pos = match.end()
    kept.extend(range(pos, len(text)))
    return "".join(text[i] for i in kept), kept


def span(text: str, sentence: str) -> tuple[int, int] | None:
    """Where `sentence` (as the citation check words it) is in `text`, markers included."""
    plain, index = without_markers(text)
    at = plain.find(sentence) if sentence else -1
    if at < 0:
        return None
    return index[at], index[at + len(sentence) - 1] + 1


def block_end(text: str, sentence: str) -> int | None:
    """The end of the block holding `sentence`; None when the text does not have it (an
    edited revision that dropped it)."""
    found = span(text, sentence)
    if found is None:
        return None
    after = BLOCK_END.search(text, found[1])
    return after.start() if after else len(text)


def placed(text: str, figures: Sequence[Figure], block: Callable[[int, Figure], str]) -> str:
    """`text` with `block(i, figure)` as a block of its own after each figure's sentence (a
    figure whose sentence the text no longer has is left out)."""
    clean = text.replace("\ue002", "").replace("\ue003", "")
    ends = [(block_end(clean, f.sentence), i) for i, f in enumerate(figures)]
    at = [(end, i) for end, i in ends if end is not None]
    for offset, i in sorted(at, reverse=True):
        rest = clean[offset:].lstrip("\n")
        clean = f"{clean[:offset].rstrip(chr(10))}\n\n{block(i, figures[i])}" + (
            f"\n\n{rest}" if rest else ""
        )
    return clean


def placeholder(index: int, figure: Figure) -> str:
    return f"\ue002{index}\ue003"
