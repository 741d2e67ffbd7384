"""The names a sentence states, and the part of it that says something about its subject.

Two shapes of wrong sentence passed the word-overlap check (issue 25): a swapped name ("…
British Columbia, Canada" edited to "… Tasmania, Australia": every other word still matches)
and a claim whose only matched words are its subject ("Zephyr widgets are radioactive" citing
a page on Zephyr widgets as brass fittings). So, like numbers and months:

* every name of the sentence — a capitalised word inside it (not the first word, unless it
  starts a run of capitalised words or is an acronym) — must be in the cited passage or title;
* when the sentence splits at its first verb of being or having ("Zephyr widgets | are
  radioactive"), a content word of the part after it must be in the supporting window.

Both are lexical: they catch a changed name and an unrelated predicate, not a paraphrased
falsehood that keeps the passage's own words. A sentence in title case (a heading) has no
names read this way.
"""

from __future__ import annotations

import re
import unicodedata

from ..text import STOPWORDS, content_tokens, stem

WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
# Where a capital letter says nothing: a new clause after these marks.
CLAUSE_START = re.compile(r"[:;(\"“‘—–]\s*$|^\s*$")
SPLITTERS = frozenset(
    """is are was were be been being has have had will would can could may might must shall
    should became becomes become remains remain""".split()
)
TITLE_CASE_WORDS = 3  # a heading: this many words or more, every one capitalised
MONTHS_AND_DAYS = frozenset(
    """january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday""".split()
)  # checked as dates by support.months, or common words ("May")


def fold(word: str) -> str:
    """Lower case, accents off, possessive off: 'Québec's' and 'quebec' meet."""
    plain = unicodedata.normalize("NFKD", word.lower())
    plain = "".join(c for c in plain if not unicodedata.combining(c))
    return re.sub(r"['’]s$", "", plain)


def names(sentence: str) -> set[str]:
    """The folded name words of `sentence` (see the module docstring)."""
    text = re.sub(r"[*_`]+", "", sentence)
    found = list(WORD.finditer(text))
    lexical = [m.group(0) for m in found if fold(m.group(0)) not in STOPWORDS]
    if len(lexical) >= TITLE_CASE_WORDS and all(w[0].isupper() for w in lexical):
        return set()  # a heading in title case: its capitals name nothing
    out = set()
    for i, match in enumerate(found):
        word = match.group(0)
        if not word[0].isupper() or fold(word) in STOPWORDS or fold(word) in MONTHS_AND_DAYS:
            continue
        starts = bool(CLAUSE_START.search(text[: match.start()]))
        follows = i + 1 < len(found) and found[i + 1].group(0)[0].isupper()
        acronym = len(word) > 1 and word.isupper()
        if not starts or follows or acronym:
            out.add(fold(word))
    return out


def folded_words(text: str) -> set[str]:
    return {fold(m.group(0)) for m in WORD.finditer(text)}


def predicate(sentence: str) -> set[str]:
    """The stems of what the sentence says about its subject: its content words after its
    first verb of being or having that are not also in the subject. Empty when it does not
    split there (the rule then does not apply)."""
    for match in WORD.finditer(sentence):
        if match.start() and match.group(0).lower() in SPLITTERS:
            # The same tokens as the check's windows (`content_tokens` keeps "president-elect").
            subject = {stem(t) for t in content_tokens(sentence[: match.start()])}
            after = {stem(t) for t in content_tokens(sentence[match.end() :])}
            return after - subject
    return set()
