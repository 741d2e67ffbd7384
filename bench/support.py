"""Does the citation check mean what its badge says? Measured on saved evidence (`bench.replay`).

For each saved question the extractive answer is replayed (as `bench.replay score` does) and
its cited sentences are counted supported or not: these sentences are copied from the very
passages they cite, so each one the check calls unsupported is a right sentence wrongly
flagged. Then three kinds of wrong sentences are made from the supported ones, each checked
against the same cited sources:

* swapped name: a capitalised word inside the sentence replaced by one from another
  question's evidence that the cited source never mentions ("… in Tasmania" for "… in Canada");
* subject only: the sentence's first words kept, the rest replaced by the end of another
  question's sentence ("Zephyr widgets are" + "… radioactive");
* swapped number: a figure changed (the check caught these before; a control).

And one kind of right sentence that is not a verbatim copy — shortened: every third word after
the first three dropped, as a summary drops them — must stay supported.

    python -m bench.support /tmp/nq.jsonl /tmp/hotpot.jsonl [--limit 300]
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sleuth.evaluate.report import fmt_rate
from sleuth.evaluate.score import Rate, rate_of
from sleuth.pipeline.answer import finish_answer
from sleuth.pipeline.cite import claims
from sleuth.pipeline.support import supports
from sleuth.pipeline.write.extractive import compose, render
from sleuth.types import ResearchRequest, Source

from .replay import Evidence, load

NAME = re.compile(r"(?<=[a-z,] )[A-Z][a-z]{3,}\b")
FIGURE = re.compile(r"\b\d{2,4}\b")
MIN_RECALL = ResearchRequest("q").cite_min_recall


@dataclass(frozen=True, slots=True)
class Cited:
    sentence: str
    sources: tuple[Source, ...]
    item: int  # which question it came from


@dataclass
class Tally:
    checked: int = 0
    supported: int = 0
    made: dict[str, list[bool]] = field(default_factory=dict)  # kind -> caught per sentence


def cited_sentences(items: Sequence[Evidence]) -> Iterator[tuple[Cited, bool]]:
    """Every cited sentence of every replayed extractive answer, and whether it passed."""
    for index, item in enumerate(items):
        raw = render(compose(item.sources, item.question, 5))
        done = finish_answer(raw, item.sources, ResearchRequest(item.question))
        failed = {u.sentence for u in done.verification.unsupported}
        by_number = {s.number: s for s in item.sources}
        for claim in claims(done.answer.split("\n## Citation health")[0]):
            own = tuple(by_number[n] for n in claim.numbers if n in by_number)
            if own:
                yield Cited(claim.sentence, own, index), claim.sentence not in failed


def _checked(sentence: str, sources: Sequence[Source]) -> bool:
    return all(supports(sentence, s, MIN_RECALL) for s in sources)


def _mentioned(word: str, sources: Sequence[Source]) -> bool:
    low = word.lower()
    return any(low in f"{s.title} {p.text}".lower() for s in sources for p in s.passages)


def swapped_name(cited: Cited, pool: Sequence[Cited]) -> str | None:
    names = NAME.findall(cited.sentence)
    if not names:
        return None
    for other in pool:
        for name in NAME.findall(other.sentence):
            if other.item != cited.item and not _mentioned(name, cited.sources):
                return cited.sentence.replace(names[0], name, 1)
    return None


def subject_only(cited: Cited, pool: Sequence[Cited]) -> str | None:
    words = cited.sentence.rstrip(".").split()
    if len(words) < 8:
        return None
    for other in pool:
        tail = other.sentence.rstrip(".").split()
        if other.item != cited.item and len(tail) >= 8:
            return " ".join(words[:3] + tail[-4:]) + "."
    return None


def swapped_figure(cited: Cited, _pool: Sequence[Cited]) -> str | None:
    figure = FIGURE.search(cited.sentence)
    if figure is None:
        return None
    changed = str(int(figure.group(0)) + 7)
    return cited.sentence[: figure.start()] + changed + cited.sentence[figure.end() :]


def shortened(cited: Cited, _pool: Sequence[Cited]) -> str | None:
    words = cited.sentence.split()
    if len(words) < 9:
        return None
    kept = words[:3] + [w for i, w in enumerate(words[3:]) if i % 3 != 2]
    return " ".join(kept)


MAKERS = {"swapped name": swapped_name, "subject only": subject_only, "number": swapped_figure}
RIGHT = {"shortened": shortened}


def measure(items: Sequence[Evidence]) -> Tally:
    tally = Tally(made={kind: [] for kind in (*MAKERS, *RIGHT)})
    supported: list[Cited] = []
    for cited, passed in cited_sentences(items):
        tally.checked += 1
        tally.supported += passed
        if passed:
            supported.append(cited)
    for i, cited in enumerate(supported):
        pool = supported[i + 1 :] + supported[:i]  # the next questions' sentences first
        for kind, make in MAKERS.items():
            wrong = make(cited, pool[:200])
            if wrong is not None and wrong != cited.sentence:
                tally.made[kind].append(not _checked(wrong, cited.sources))
        for kind, make in RIGHT.items():
            right = make(cited, pool)
            if right is not None:
                tally.made[kind].append(_checked(right, cited.sources))
    return tally


def report(path: Path, tally: Tally) -> str:
    kept = Rate(tally.supported, tally.checked)
    rows = [f"{path.name}", f"  right sentences supported      {fmt_rate(kept)}"]
    for kind, flags in tally.made.items():
        said = "supported" if kind in RIGHT else "caught"
        rows.append(f"  {kind + ' ' + said:30s} {fmt_rate(rate_of(flags))}")
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.support", description=__doc__)
    ap.add_argument("files", type=Path, nargs="+")
    ap.add_argument("--limit", type=int, default=0, help="the first N questions of each file")
    args = ap.parse_args(argv)
    for path in args.files:
        items = [i for i in load(path) if i.answerable]
        print(report(path, measure(items[: args.limit] if args.limit else items)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
