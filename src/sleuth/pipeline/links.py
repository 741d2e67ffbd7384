"""Links and source lists in a writer's output are not citations.

Only a `[n]` marker that names a numbered source is a citation. A model (or a page steering it)
can add a `**Sources**` list of its own, reference definitions, markdown links or bare URLs;
left in, they would read as citations, and a list line such as "[1] Audit logs — https://…"
would even be checked as a cited claim and raise confidence. So, before the citation check:

* a source list — a `Sources`/`References`/… heading or bold label and the list under it, or
  any line that is only a marker or number followed by a URL — is removed;
* a markdown link keeps its text; a link or bare URL to a numbered source becomes its `[n]`,
  any other URL is removed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..types import Source
from ..urls import normalize_url

LIST_LABEL = re.compile(
    r"^\s*(?:#{1,6}\s*)?(?:\*\*|__)?\s*(?:sources?(?: used| cited)?|references|bibliography|"
    r"citations|works cited|further reading|links)\s*:?\s*(?:\*\*|__)?\s*:?\s*$",
    re.IGNORECASE,
)
LIST_ITEM = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+|\[\^?\d+\]:?\s*|\^?\d+\s+https?://)")
URL = r"(?:https?|ftp)://[^\s<>()\[\]]+"
ENTRY_LINE = re.compile(
    rf"^\s*(?:[-*+]\s*)?(?:\[\^?\d+\]|\d+[.)])\s*:?\s*(?:.*?\s)?<?{URL}>?\s*[.)]?\s*$"
)
MARKDOWN_LINK = re.compile(rf"!?\[([^\]\n]*)\]\(\s*<?({URL})>?(?:\s+\"[^\"]*\")?\s*\)")
BARE_URL = re.compile(rf"<({URL})>|(?<![\w/])({URL})")


def strip_source_lists(text: str) -> str:
    """Drop model-made source lists and reference lines, wherever they stand."""
    out: list[str] = []
    in_list = False
    for line in text.splitlines():
        if LIST_LABEL.match(line):
            in_list = True
            continue
        if in_list and (not line.strip() or LIST_ITEM.match(line) or ENTRY_LINE.match(line)):
            continue
        in_list = False
        if ENTRY_LINE.match(line):
            continue
        out.append(line)
    return "\n".join(out)


def delink(text: str, sources: Sequence[Source]) -> str:
    """Markdown links keep their text; a URL of a numbered source becomes `[n]`, others go."""
    numbers = {normalize_url(s.url): s.number for s in sources}

    def marker(url: str) -> str:
        n = numbers.get(normalize_url(url.rstrip(".,;:")))
        return f" [{n}]" if n is not None else ""

    text = MARKDOWN_LINK.sub(lambda m: m.group(1) + marker(m.group(2)), text)
    text = BARE_URL.sub(lambda m: marker(m.group(1) or m.group(2)), text)
    return re.sub(r"[ \t]+([.,;:!?)])", r"\1", re.sub(r"[ \t]{2,}", " ", text))


def not_citations(text: str, sources: Sequence[Source]) -> str:
    return delink(strip_source_lists(text), sources)
