"""What a verifier finds by comparing a pack's contents with each other and with its own
re-check: sentences added, removed or edited, citation numbers changed, support that no longer
holds, sources missing or whose text is not the one their record names."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..text import clip
from .check import SentenceCheck, checked_text
from .layout import ANSWER, sha256, source_json, source_text


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing a verifier found: where (a file, or a sentence), what, and whether it makes
    the pack fail (`serious`) or is a note."""

    where: str
    message: str
    serious: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"where": self.where, "message": self.message, "serious": self.serious}


def at(sentence: str) -> str:
    return f'sentence "{clip(sentence, 90)}"'


def marks(numbers: Sequence[int]) -> str:
    return "".join(f"[{n}]" for n in numbers) or "nothing"


def sentence_changes(recorded: Sequence[str], current: Sequence[str]) -> list[Finding]:
    """Sentences of answer.md that the checked answer did not have, and the reverse."""
    out: list[Finding] = []
    matcher = difflib.SequenceMatcher(a=list(recorded), b=list(current), autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            continue
        out += [
            Finding(at(s), "is not in the answer that was checked (added or edited)")
            for s in current[b0:b1]
        ]
        out += [
            Finding(at(s), "was in the answer that was checked and is gone")
            for s in recorded[a0:a1]
        ]
    return out


def claim_changes(
    recorded: Sequence[Mapping[str, Any]],
    checks: Sequence[SentenceCheck],
    added: set[str],
    same_checker: bool = True,
) -> list[Finding]:
    """Each cited sentence against its recorded verdict: numbers and support. A verdict that
    differs under another version of the check is a note: the check, not the pack, changed."""
    before: dict[str, list[Mapping[str, Any]]] = {}
    for item in recorded:
        before.setdefault(str(item.get("sentence", "")), []).append(item)
    out: list[Finding] = []
    for check in checks:
        queue = before.get(check.sentence)
        out += _missing(check)
        if queue:
            out += _against(check, queue.pop(0), same_checker)
        elif check.sentence not in added:
            message = f"cites {marks(check.numbers)}; the checked answer cited nothing there"
            out.append(Finding(at(check.sentence), message))
    return out


def _against(check: SentenceCheck, old: Mapping[str, Any], same_checker: bool) -> list[Finding]:
    out = []
    numbers = tuple(int(n) for n in old.get("numbers", ()))
    if numbers != check.numbers:
        message = f"cites {marks(check.numbers)} where the checked answer cited {marks(numbers)}"
        out.append(Finding(at(check.sentence), message))
    if bool(old.get("supported")) != check.supported:
        was = "supported" if old.get("supported") else "unsupported"
        now = "supported" if check.supported else "not supported"
        message = f"was {was} when the pack was made, {now} by its sources now"
        if not same_checker:
            message += " (by this Sleuth's version of the check)"
        out.append(Finding(at(check.sentence), message, serious=same_checker))
    return out


def _missing(check: SentenceCheck) -> list[Finding]:
    if not check.missing:
        return []
    return [
        Finding(
            at(check.sentence), f"cites {marks(check.missing)}, a source the pack does not hold"
        )
    ]


def unsupported(checks: Sequence[SentenceCheck], strict: bool) -> list[Finding]:
    """Sentences the sources do not support: a note (the pack says so honestly), or a failure
    with `strict`. Ones already reported for a missing source are not repeated."""
    return [
        Finding(at(c.sentence), f"is not supported by {marks(c.numbers)}", serious=strict)
        for c in checks
        if not c.supported and not c.missing
    ]


def answer_agrees(answer: str, result: Mapping[str, Any]) -> list[Finding]:
    if result.get("data") is not None:
        return []
    if checked_text(str(result.get("answer") or "")) == answer:
        return []
    return [Finding(ANSWER, "differs from the answer in result.json")]


def source_text_agrees(number: int, record: Mapping[str, Any], text: bytes) -> list[Finding]:
    out = []
    if record.get("number") != number:
        out.append(Finding(source_json(number), f"says it is source {record.get('number')}"))
    if record.get("text_sha256") != sha256(text):
        out.append(
            Finding(
                source_text(number),
                f"is not the text {source_json(number)} names (its SHA-256 differs)",
            )
        )
    return out
