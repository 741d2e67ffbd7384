"""The citation check of a translation. The lexical check (`cite.verify`) matches a sentence's
words with its sources' words, so a report translated into the language of none of its sources
fails everywhere: every sentence read as unsupported. A translated sentence is checked instead
through the sentence it translates — the basis text's sentence at the same place citing the
same sources, itself checked against the sources word for word — and is as supported as that
one. A sentence with no such counterpart (added, or citing differently) keeps its own verdict.
No check can tell whether a translation is faithful; this one keeps what the original was."""

from __future__ import annotations

from difflib import SequenceMatcher

from ..types import Verification
from .cite import Claim, claims


def carried(
    text: str, checked: Verification, basis: str, basis_checked: Verification
) -> Verification:
    """`checked` (the lexical check of `text`) with each sentence the check refused but whose
    counterpart in `basis` passed counted as supported."""
    mine, theirs = claims(text), claims(basis)
    refused = {(u.sentence, u.numbers) for u in basis_checked.unsupported}
    vouched = {
        index
        for index, counterpart in _counterparts(theirs, mine).items()
        if (counterpart.sentence, counterpart.numbers) not in refused
    }
    by_sentence = {(c.sentence, c.numbers): i for i, c in enumerate(mine)}
    still = tuple(
        u
        for u in checked.unsupported
        if by_sentence.get((u.sentence, u.numbers)) not in vouched or not u.numbers
    )
    return Verification(checked.checked, checked.checked - len(still), still, checked.enabled)


def _counterparts(theirs: list[Claim], mine: list[Claim]) -> dict[int, Claim]:
    """For each sentence of `mine` (by index), the sentence of `theirs` it stands in for:
    aligned by the order of their citations, a sentence dropped or added on either side
    leaving the rest in step."""
    matcher = SequenceMatcher(
        a=[c.numbers for c in theirs], b=[c.numbers for c in mine], autojunk=False
    )
    pairs: dict[int, Claim] = {}
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            pairs[block.b + k] = theirs[block.a + k]
    return pairs
