"""Duplicate detection: the same page under two URLs, and the same text on two pages.

Near-duplicates are measured as the Jaccard similarity of word 5-gram ("shingle") sets, so a
syndicated article with a different header and footer still matches its original while two
pages on the same topic do not. Shingles are hashed to ints; a long text keeps only the
shingles whose hash falls in one residue class (Broder's mod-m sampling), an unbiased
estimate of the resemblance that bounds the work on multi-megabyte pages. Fingerprints use
Python's per-process string hash, so they are compared in memory and never stored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

DEFAULT_THRESHOLD = 0.9
SHINGLE_WORDS = 5
# Above this many word positions a text is sampled; below it comparisons are exact.
EXACT_LIMIT = 20_000
SAMPLE_MASK = 7  # keep one shingle in eight
_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """The hashed shingles of one text; `sampled` when only one residue class was kept."""

    shingles: frozenset[int]
    sampled: bool


def _sample(shingles: Iterable[int]) -> frozenset[int]:
    return frozenset(h for h in shingles if not h & SAMPLE_MASK)


def fingerprint(text: str) -> Fingerprint:
    """Hashed word 5-grams of `text` (case and punctuation ignored)."""
    words = _WORD.findall(text.lower())
    if len(words) < SHINGLE_WORDS:
        return Fingerprint(frozenset({hash(tuple(words))}) if words else frozenset(), False)
    grams = map(hash, zip(*(words[i:] for i in range(SHINGLE_WORDS)), strict=False))
    if len(words) > EXACT_LIMIT:
        return Fingerprint(_sample(grams), True)
    return Fingerprint(frozenset(grams), False)


def similarity(a: Fingerprint, b: Fingerprint) -> float:
    """Jaccard similarity of two fingerprints, sampling the exact one when the other is sampled."""
    sa, sb = a.shingles, b.shingles
    if a.sampled != b.sampled:
        sa, sb = (sa, _sample(sb)) if a.sampled else (_sample(sa), sb)
    if not sa or not sb:
        return 0.0
    inter = len(sa & sb)
    return inter / (len(sa) + len(sb) - inter)


def _may_reach(a: Fingerprint, b: Fingerprint, threshold: float) -> bool:
    # Jaccard can never exceed min/max of the set sizes: skip the intersection when it cannot.
    if a.sampled != b.sampled:
        return True
    small, large = sorted((len(a.shingles), len(b.shingles)))
    return large > 0 and small / large >= threshold


class NearDuplicates:
    """The texts kept so far, fingerprinted once, so each new text costs one pass of its own."""

    def __init__(self, threshold: float = DEFAULT_THRESHOLD) -> None:
        self.threshold = threshold
        self._kept: list[Fingerprint] = []

    def __len__(self) -> int:
        return len(self._kept)

    def match(self, text: str) -> int | None:
        """Index of the kept text that `text` duplicates, or None."""
        return self._match(fingerprint(text))

    def keep(self, text: str) -> int:
        """Add `text` to the kept set unconditionally (anchors); returns its index."""
        self._kept.append(fingerprint(text))
        return len(self._kept) - 1

    def add_unless_duplicate(self, text: str) -> int | None:
        """Keep `text` unless it duplicates a kept one; returns that kept index, else None."""
        candidate = fingerprint(text)
        found = self._match(candidate)
        if found is None:
            self._kept.append(candidate)
        return found

    def _match(self, candidate: Fingerprint) -> int | None:
        for index, kept in enumerate(self._kept):
            if not _may_reach(candidate, kept, self.threshold):
                continue
            if similarity(candidate, kept) >= self.threshold:
                return index
        return None
