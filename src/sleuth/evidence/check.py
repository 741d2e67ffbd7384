"""The citation check of an evidence pack, sentence by sentence.

It is the run's own check, called through its public functions: `cite.claims` finds the cited
sentences and `cite.verify` judges them against the sources' passages, with the threshold the
run used. A sentence that cites a number the pack has no source for is unsupported, whatever
else it cites (the run dropped unknown numbers, so only an edit can put one there).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata, resources
from typing import Any

from ..pipeline import cite
from ..text import split_sentences
from ..types import Source

CHECKER = "sleuth.pipeline.cite.verify"
# The code whose behaviour decides support: hashed into the checker's fingerprint, so a pack
# checked by another version of it says so instead of passing off a different verdict.
CHECKER_FILES = ("pipeline/cite.py", "pipeline/support.py", "text/__init__.py")
HEALTH_HEADING = "\n## Citation health\n"
SPACE_BEFORE_MARK = re.compile(r"\s+([.,;:!?])")


@dataclass(frozen=True, slots=True)
class Checker:
    name: str
    version: str  # Sleuth's version
    fingerprint: str  # sha256 of CHECKER_FILES
    min_recall: float

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "sleuth_version": self.version,
            "code_sha256": self.fingerprint,
            "min_recall": self.min_recall,
        }


@dataclass(frozen=True, slots=True)
class SentenceCheck:
    sentence: str
    numbers: tuple[int, ...]
    supported: bool
    missing: tuple[int, ...] = ()  # cited numbers with no source in the pack

    def to_json(self) -> dict[str, Any]:
        return {
            "sentence": self.sentence,
            "numbers": list(self.numbers),
            "supported": self.supported,
        }


def current_checker(min_recall: float) -> Checker:
    return Checker(CHECKER, _version(), fingerprint(), min_recall)


def fingerprint() -> str:
    digest = hashlib.sha256()
    package = resources.files("sleuth")
    for name in CHECKER_FILES:
        digest.update(name.encode() + b"\0" + package.joinpath(name).read_bytes() + b"\0")
    return digest.hexdigest()


def _version() -> str:
    try:
        return metadata.version("sleuth")
    except metadata.PackageNotFoundError:
        return "unknown"


def checked_text(answer: str) -> str:
    """The answer as the check read it: without the `## Citation health` section Sleuth adds
    after checking (the writer cannot produce that heading: `answer.clean` strips it)."""
    head = ("\n" + answer).split(HEALTH_HEADING, 1)[0][1:]
    return head.strip() + "\n" if head.strip() else ""


def check_answer(
    answer: str, sources: Sequence[Source], min_recall: float
) -> tuple[SentenceCheck, ...]:
    """Every cited sentence of `answer` with whether its sources in `sources` support it."""
    text = cite.normalize(answer, None)
    have = {s.number for s in sources}
    verification = cite.verify(text, sources, min_recall, cite.invented(text, have))
    failed = {(u.sentence, u.numbers) for u in verification.unsupported}
    out = []
    for claim in cite.claims(text):
        present = tuple(n for n in claim.numbers if n in have)
        missing = tuple(n for n in claim.numbers if n not in have)
        supported = bool(present) and not missing and (claim.sentence, present) not in failed
        out.append(SentenceCheck(claim.sentence, claim.numbers, supported, missing))
    return tuple(out)


def answer_sentences(answer: str) -> tuple[str, ...]:
    """Every sentence of the answer, cited or not, without its markers: what a verifier
    compares to find a sentence added, removed or edited (an added sentence need not cite)."""
    out: list[str] = []
    for line in cite.normalize(answer, None).splitlines():
        body = cite.ONE.sub("", cite.LINE_PREFIX.sub("", line)).strip()
        for _, sentence in split_sentences(body):
            plain = SPACE_BEFORE_MARK.sub(r"\1", " ".join(sentence.split()))
            if plain:
                out.append(plain)
    return tuple(out)
