"""Citations, enforced in code after the writer (DESIGN §1–2).

* `normalize` removes numbers that match no source, expands `[1, 3]` and `[1-3]`, collapses
  repeats, and writes every marker as `[n]`.
* `verify` checks each cited sentence lexically: the share of its content tokens found in each
  cited source must reach `min_recall`; a multi-cite sentence passes only if every cite does.
* `citations` lists exactly the cited sources in number order with a quote from the passage that
  best matches the sentences citing it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..text import clip, content_tokens, split_sentences, words
from ..types import Citation, Confidence, Source, UnsupportedSentence, Verification

MARKER = re.compile(r"\[\s*(\d+(?:\s*(?:[-–—]|,|;)\s*\d+)*)\s*\](?!\()")
RUN_OF_MARKERS = re.compile(r"(?:\[\d+\]\s*)+")
ONE = re.compile(r"\[(\d+)\]")
QUOTE_LIMIT = 300
MAX_RANGE = 50  # "[1-9999]" is not a real citation; cap expansion


def _expand(group: str) -> list[int]:
    numbers: list[int] = []
    for part in re.split(r"\s*[,;]\s*", group.strip()):
        bounds = re.split(r"\s*[-–—]\s*", part)
        if len(bounds) == 2 and bounds[0].isdigit() and bounds[1].isdigit():
            lo, hi = int(bounds[0]), int(bounds[1])
            if lo <= hi and hi - lo <= MAX_RANGE:
                numbers.extend(range(lo, hi + 1))
        elif part.isdigit():
            numbers.append(int(part))
    return numbers


def normalize(answer: str, valid: Iterable[int]) -> str:
    """Rewrite markers to `[n]`, dropping unknown numbers and repeats within a run of markers."""
    allowed = set(valid)

    def expand(match: re.Match[str]) -> str:
        kept = [n for n in dict.fromkeys(_expand(match.group(1))) if n in allowed]
        return "".join(f"[{n}]" for n in kept)

    text = MARKER.sub(expand, answer)

    def dedupe_run(match: re.Match[str]) -> str:
        run = match.group(0)
        numbers = dict.fromkeys(int(n) for n in ONE.findall(run))
        trailing = run[len(run.rstrip()) :]
        return "".join(f"[{n}]" for n in numbers) + trailing

    text = RUN_OF_MARKERS.sub(dedupe_run, text)
    text = re.sub(r"[ \t]+([.,;:!?])", r"\1", text)  # "claim [9] ." after removal -> "claim."
    return re.sub(r"[ \t]{2,}", " ", text)


def cited_numbers(answer: str) -> list[int]:
    return sorted({int(n) for n in ONE.findall(answer)})


@dataclass(frozen=True, slots=True)
class Claim:
    sentence: str  # without markers
    numbers: tuple[int, ...]


def claims(answer: str) -> list[Claim]:
    """Cited sentences of a markdown answer; markers after a sentence's end belong to it."""
    out: list[Claim] = []
    for line in answer.splitlines():
        body = re.sub(r"^\s*(?:#{1,6}\s|[-*+]\s|\d+[.)]\s|>\s?)", "", line).strip()
        if not body or body.startswith("|"):
            continue
        for _, sentence in split_sentences(body):
            numbers = tuple(dict.fromkeys(int(n) for n in ONE.findall(sentence)))
            plain = re.sub(r"\s+([.,;:!?])", r"\1", ONE.sub("", sentence)).strip()
            if numbers and plain:
                out.append(Claim(plain, numbers))
    return out


def recall(sentence: str, source_tokens: set[str]) -> float:
    tokens = content_tokens(sentence)
    if not tokens:
        return 1.0
    return sum(1 for t in tokens if t in source_tokens) / len(tokens)


def source_tokens(source: Source) -> set[str]:
    text = source.text or " ".join(p.text for p in source.passages)
    return set(words(f"{source.title} {text}"))


def verify(answer: str, sources: Sequence[Source], min_recall: float = 0.4) -> Verification:
    by_number = {s.number: s for s in sources}
    tokens = {s.number: source_tokens(s) for s in sources}
    checked = supported = 0
    unsupported: list[UnsupportedSentence] = []
    for claim in claims(answer):
        numbers = [n for n in claim.numbers if n in by_number]
        if not numbers:
            continue
        checked += 1
        if all(recall(claim.sentence, tokens[n]) >= min_recall for n in numbers):
            supported += 1
        else:
            unsupported.append(UnsupportedSentence(claim.sentence, tuple(numbers)))
    return Verification(checked, supported, tuple(unsupported))


def citations(answer: str, sources: Sequence[Source]) -> tuple[Citation, ...]:
    """Exactly the cited sources, number order, each with its best-matching passage as quote."""
    by_number = {s.number: s for s in sources}
    citing: dict[int, list[str]] = {}
    for claim in claims(answer):
        for n in claim.numbers:
            citing.setdefault(n, []).append(claim.sentence)
    out = []
    for n in cited_numbers(answer):
        if n in by_number:
            source = by_number[n]
            quote = _quote(source, citing.get(n, []))
            out.append(Citation(n, source.url, source.title, quote, source.location))
    return tuple(out)


def _quote(source: Source, sentences: list[str]) -> str:
    if not source.passages:
        return clip(source.text.strip(), QUOTE_LIMIT)
    wanted = set(content_tokens(" ".join(sentences)))

    def overlap(index: int) -> tuple[int, float]:
        passage = source.passages[index]
        return (len(wanted & set(content_tokens(passage.text))), passage.score)

    best = max(range(len(source.passages)), key=overlap)
    return clip(_best_window(source.passages[best].text, wanted), QUOTE_LIMIT)


def _best_window(text: str, wanted: set[str]) -> str:
    """Start the quote at the sentence that best matches, so the relevant part fits 300 chars."""
    if len(text) <= QUOTE_LIMIT or not wanted:
        return text
    sentences = split_sentences(text)
    if not sentences:
        return text
    start = max(sentences, key=lambda s: len(wanted & set(content_tokens(s[1]))))[0]
    return text[start:]


def health_footer(verification: Verification) -> str:
    """The `## Citation health` section, only when something failed."""
    if not verification.unsupported:
        return ""
    lines = [
        "",
        "## Citation health",
        "",
        f"{verification.supported} of {verification.checked} cited sentences are supported by "
        "their sources; these are not:",
        "",
    ]
    for item in verification.unsupported:
        marks = "".join(f"[{n}]" for n in item.numbers)
        lines.append(f"- {clip(item.sentence, 200)} {marks}")
    return "\n".join(lines) + "\n"


def confidence(sources: Sequence[Source], verification: Verification, cited: int) -> Confidence:
    """A coarse grade from sources read, distinct sources cited, and citations that held up.

    high: at least 3 sources read, 2 of them cited, 90% of checked citations supported;
    medium: at least 2 read, 1 cited, 60% supported; low otherwise.
    """
    read = sum(1 for s in sources if not s.snippet)
    ratio = verification.supported / verification.checked if verification.checked else 0.0
    if read >= 3 and cited >= 2 and ratio >= 0.9:
        return "high"
    if read >= 2 and cited >= 1 and ratio >= 0.6:
        return "medium"
    return "low"
