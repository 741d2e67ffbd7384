"""Making outside text safe to show: in a terminal, and in markdown someone will render.

Titles, snippets, page text and model output are written by strangers. In a terminal an escape
sequence can write the clipboard (OSC 52), disguise a link (OSC 8), or move the cursor to
overwrite what Sleuth printed; in a markdown viewer a raw `<img onerror=...>` runs script.
"""

from __future__ import annotations

import re

# CSI (ESC [ or 0x9B) ... final byte; string sequences OSC, DCS, SOS, PM, APC up to their
# terminator (BEL or ST) or the end of the line; any other two-byte ESC sequence.
_ESCAPES = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]?"
)
# What is left of C0 (but tab and newline), DEL, C1, and the bidirectional overrides that
# make a line display in a different order than it reads.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# A tag-like run: `<` then a letter, `/`, `!` or `?` (so "a < b" and "<3" stay as they are).
_TAG = re.compile(r"<(?=[A-Za-z/!?])")


def terminal_safe(text: str) -> str:
    """`text` with every terminal control sequence and control character removed; line breaks
    (as `\\n`) and tabs are kept."""
    text = text.replace("\r\n", "\n")
    return _CONTROLS.sub("", _ESCAPES.sub("", text))


def escape_html_tags(text: str) -> str:
    """Raw HTML tags made inert for a markdown renderer: `<img ...>` becomes `&lt;img ...>`,
    which any renderer shows as the literal text. Other `<` and `&` are left alone."""
    return _TAG.sub("&lt;", text)


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`1 source`, `4 sources`: a count with its noun in the right number (English; the web
    UI words its own through the catalogue)."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
