"""Untrusted text given to a model cannot imitate the prompt's own delimiters.

Page text sits inside `<source number="n">…</source>` blocks; a requester's added instructions
inside `<requester>…</requester>`. A page that writes `</source>` would close its own block
and speak as the prompt. Exact tags were already defused; near misses were not, and a model
reads them the same way (issue 24): `< /source>`, `</ SOURCE >`, a fullwidth `＜/source＞`, a
Cyrillic `ѕ` for the `s`, a zero-width space inside the word, a division slash for the `/`, an
entity `&lt;/source&gt;`. Here the text is first normalised (NFKC, format characters removed),
then matched on a folded copy in which look-alike letters, brackets and slashes read as ASCII;
each tag-like match loses its bracket and its spacing (`</source>` becomes `/source`).
"""

from __future__ import annotations

import re
import unicodedata

# The prompt's tag names (prompts/*.md): sources, requester's instructions, drafts, reports,
# and the gap a draft says it has (the gap check's planner prompt).
TAGS = ("sources", "source", "requester", "draft", "report", "old_answer", "new_answer", "system",
        "gap")  # fmt: skip
_BRACKET = r"(?:<|&lt;?|&#0*60;?|&#x0*3c;?)"
_TAG = re.compile(_BRACKET + r"[\s_]*(/?)[\s_]*(" + "|".join(TAGS) + r")(?![a-z])", re.IGNORECASE)
# Each maps one character to one, so positions in the folded copy are positions in the text.
_LOOKALIKES = str.maketrans(
    {
        **dict.fromkeys("‹〈⟨❮˂ᐸ《«⧼", "<"),
        **dict.fromkeys("∕⁄⧸╱⟋\\", "/"),
        "а": "a", "с": "c", "ԁ": "d", "е": "e", "ҽ": "e", "һ": "h", "і": "i", "ј": "j",
        "ӏ": "l", "о": "o", "р": "p", "ԛ": "q", "г": "r", "ѕ": "s", "ꜱ": "s", "υ": "u",
        "ս": "u", "ѵ": "v", "ԝ": "w", "х": "x", "у": "y", "ο": "o", "ρ": "p", "ε": "e",
        "τ": "t", "ι": "i", "κ": "k", "ν": "v", "ɑ": "a", "ɡ": "g", "ᴏ": "o", "ꞅ": "r",
        "0": "o",
    }
)  # fmt: skip


def normalised(text: str) -> str:
    """NFKC (fullwidth and compatibility forms to their plain ones) without format characters
    (zero-width spaces and joiners, bidi marks), which hide a tag from a plain match."""
    text = unicodedata.normalize("NFKC", text)
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def defused(text: str) -> str:
    """`text` with every tag-like run that could read as one of the prompt's delimiters
    reduced to its bare name (`/source`), so it can neither close nor open a block."""
    text = normalised(text)
    folded = text.translate(_LOOKALIKES)
    pieces, at = [], 0
    for match in _TAG.finditer(folded):
        pieces.append(text[at : match.start()])
        pieces.append(match.group(1) + match.group(2).lower())
        at = match.end()
    pieces.append(text[at:])
    return "".join(pieces)
