"""Citations, enforced in code after the writer (DESIGN §1–2).

* `normalize` removes numbers that match no source, expands `[1, 3]` and `[1-3]`, collapses
  repeats, and writes every marker as `[n]`.
* `claims` finds the cited sentences: a marker belongs to the sentence it follows, in every
  style ("Claim [1].", "Claim. [1]", "Claim.[1]", footnote-like "^1", lists, tables).
* `verify` checks each cited sentence against a passage of each cited source (`support.py`:
  content words within a short window, every number, month and negation); a multi-cite
  sentence passes only if every cite does.
* `citations` lists exactly the cited sources in number order with a quote from the passage that
  best matches the sentences citing it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..text import clip, content_tokens, split_sentences
from ..types import Citation, Source, UnsupportedSentence, Verification
from .support import supports

MARKER = re.compile(r"\[\s*(\d+(?:\s*(?:[-–—]|,|;)\s*\d+)*)\s*\](?!\()")
RUN_OF_MARKERS = re.compile(r"(?:\[\d+\]\s*)+")
ONE = re.compile(r"\[(\d+)\]")
# Footnote-like markers: "[^2]" and "^[2]" anywhere, a bare "^2" only right after punctuation
# ("Claim.^2"), so "mc^2" stays algebra.
FOOTNOTE = re.compile(r"\[\^(\d+)\]|\^\[(\d+)\]|(?<=[.!?,;:)\]\"'”’])\^(\d+)\b")
# Markers written after a sentence's end mark ("Claim. [1]", "Claim.[1]"): for parsing, they
# move before it, so each belongs to the sentence it follows.
AFTER_END = re.compile(r"([.!?。！？][\"'”’)」』）]*)((?:[ \t]*\[\d+\])+)")
LINE_PREFIX = re.compile(r"^\s*(?:#{1,6}\s|[-*+]\s|\d+[.)]\s|>\s?)")
SKIPPED = re.compile(r"^\s*(?:#{1,6}\s|\|)")  # headings, and table rows (cited as a whole row)
TABLE_RULE = re.compile(r"^\s*\|?[\s:|-]+\|?\s*$")
QUOTE_LIMIT = 300
HEALTH_HEADING = "## Citation health"
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


def normalize(answer: str, valid: Iterable[int] | None) -> str:
    """Rewrite markers to `[n]`, dropping unknown numbers (all kept when `valid` is None) and
    repeats within a run of markers."""
    allowed = None if valid is None else set(valid)
    text = FOOTNOTE.sub(lambda m: f"[{next(g for g in m.groups() if g)}]", answer)

    def expand(match: re.Match[str]) -> str:
        numbers = dict.fromkeys(_expand(match.group(1)))
        kept = [n for n in numbers if allowed is None or n in allowed]
        return "".join(f"[{n}]" for n in kept)

    text = MARKER.sub(expand, text)

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
    """Cited sentences of a markdown answer. A marker belongs to the sentence it follows, in
    every style: "Claim [1].", "Claim. [1]", "Claim.[1]", a line of its own, a table cell."""
    return [c for c in _every_sentence(answer) if c.numbers]


def _every_sentence(answer: str) -> list[Claim]:
    found: list[Claim] = []  # every sentence, cited or not, so a lone marker finds its own
    for line in answer.splitlines():
        body = LINE_PREFIX.sub("", line).strip()
        if not body or TABLE_RULE.match(body):
            continue
        if ONE.sub("", body).strip() == "" and found:  # markers alone: the sentence above
            last = found[-1]
            extra = (int(n) for n in ONE.findall(body))
            found[-1] = Claim(last.sentence, tuple(dict.fromkeys((*last.numbers, *extra))))
            continue
        for piece in _table_cells(body) if body.startswith("|") else [body]:
            found += _sentences(piece)
    return found


def _table_cells(row: str) -> list[str]:
    """A table row's cells, each read with the row's first cell (what the row is about)."""
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    head = ONE.sub("", cells[0]).strip() if cells else ""
    return [cells[0]] + [f"{head}: {c}" if head else c for c in cells[1:] if c]


def _before_end(match: re.Match[str]) -> str:
    """'Claim. [1][2]' -> 'Claim [1][2].' (parsing copy only; the answer keeps its style)."""
    marks = "".join(f"[{n}]" for n in ONE.findall(match.group(2)))
    return f" {marks}{match.group(1)}"


def _sentences(text: str) -> list[Claim]:
    moved = AFTER_END.sub(_before_end, text)
    out = []
    for _, sentence in split_sentences(moved):
        numbers = tuple(dict.fromkeys(int(n) for n in ONE.findall(sentence)))
        plain = re.sub(r"\s+([.,;:!?。，；：！？])", r"\1", ONE.sub("", sentence)).strip()
        if plain:
            out.append(Claim(plain, numbers))
    return out


def invented(answer: str, valid: Iterable[int]) -> tuple[UnsupportedSentence, ...]:
    """Sentences whose every marker names a source that does not exist ("Claim [99]."), read
    before `normalize` drops the markers: unflagged, such a sentence would pass as merely
    uncited. Each is reported with no numbers (it cites nothing that was read)."""
    allowed = set(valid)
    return tuple(
        UnsupportedSentence(claim.sentence, ())
        for claim in claims(normalize(answer, None))
        if not allowed & set(claim.numbers)
    )


# What a reader may act on: a phone number, a web address, an e-mail address.
CONTACT = re.compile(
    r"\+?\(?\d[\d ().-]{6,}\d|\bhttps?://|\bwww\.|[\w.+-]+@[\w-]+\.[\w.]+", re.IGNORECASE
)
COPIED_RUN = 6  # words in a row shared with a passage: copied from the page, not the model's own


def uncited(answer: str, sources: Sequence[Source]) -> tuple[UnsupportedSentence, ...]:
    """Uncited sentences that carry page content: contact details, or a run of words copied
    from a kept passage. A page's "URGENT SAFETY NOTICE … call +1-555-0100" copied without a
    marker was kept unflagged (issue 24); each is reported with no numbers, like an invented
    citation, so the check's tally, its footer and the confidence all count it."""
    runs = {g for s in sources for p in s.passages for g in _word_runs(p.text)}
    prose = "\n".join(line for line in answer.splitlines() if not SKIPPED.match(line))
    return tuple(
        UnsupportedSentence(claim.sentence, ())
        for claim in _every_sentence(prose)
        if not claim.numbers
        and (CONTACT.search(claim.sentence) or runs & set(_word_runs(claim.sentence)))
    )


def _word_runs(text: str) -> list[tuple[str, ...]]:
    tokens = re.findall(r"\w+", text.lower())
    return [tuple(tokens[i : i + COPIED_RUN]) for i in range(len(tokens) - COPIED_RUN + 1)]


def verify(
    answer: str,
    sources: Sequence[Source],
    min_recall: float = 0.4,
    invented: Sequence[UnsupportedSentence] = (),
) -> Verification:
    """Check every cited sentence against its sources' passages (`support.supports`); a
    multi-cite sentence passes only if every cite does. `invented` (sentences citing only
    sources that do not exist, and uncited sentences carrying page content: `uncited`) count
    as checked and unsupported."""
    by_number = {s.number: s for s in sources}
    checked, supported = len(invented), 0
    unsupported: list[UnsupportedSentence] = list(invented)
    for claim in claims(answer):
        numbers = [n for n in claim.numbers if n in by_number]
        if not numbers:
            continue
        checked += 1
        if all(supports(claim.sentence, by_number[n], min_recall) for n in numbers):
            supported += 1
        else:
            unsupported.append(UnsupportedSentence(claim.sentence, tuple(numbers)))
    return Verification(checked, supported, tuple(unsupported))


def checked(
    answer: str, sources: Sequence[Source], min_recall: float = 0.4
) -> tuple[str, Verification]:
    """`answer` with its markers normalized, and its check: the one rule a run's answer and an
    edited text (the UI's live edit check) are both held to — invented citations, uncited page
    content, and every cited sentence against its sources."""
    numbers = [s.number for s in sources]
    wrong = invented(answer, numbers)
    text = normalize(answer, numbers)
    flagged = tuple(dict.fromkeys((*wrong, *uncited(text, sources))))
    return text, verify(text, sources, min_recall, flagged)


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
        HEALTH_HEADING,
        "",
        f"{verification.supported} of {verification.checked} cited sentences are supported by "
        "their sources; these are not:",
        "",
    ]
    for item in verification.unsupported:
        marks = "".join(f"[{n}]" for n in item.numbers) or "(cites no source that was read)"
        lines.append(f"- {clip(item.sentence, 200)} {marks}")
    return "\n".join(lines) + "\n"
