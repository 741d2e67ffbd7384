"""Replay the extractive writer and the confidence rule on saved evidence (issue 10's lab).

`collect` researches questions on the offline web (quick mode, no LLM) and saves each one's kept
sources; with `--hidden` their gold pages are hidden first and only the questions no remaining
page answers are kept, as `sleuth eval --unanswerable` does. `score` replays the writer and the
confidence rule on the saved sources and prints the figures issue 10 sets goals for. Retrieval
is held fixed, so a change to sentence scoring or to the answerability rule is measured on
exactly the same evidence, in seconds rather than a minute of research per try.

    python -m bench.replay collect ../shared/bench/questions.jsonl --dataset nq_open_oracle \\
        --limit 300 --seed 11 --out /tmp/nq.jsonl [--hidden]
    python -m bench.replay score /tmp/nq.jsonl /tmp/nq-hidden.jsonl

`score --part design` or `--part held-out` keeps three fifths or the other two fifths of the
questions, split by a hash of their id: rules are designed on one part and reported on the
other, which nobody looked at while designing.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sleuth.evaluate.questions import VERDICTS, Question, parse_line
from sleuth.evaluate.report import fmt_rate
from sleuth.evaluate.score import (
    CITE_MARK,
    Rate,
    contains_answer,
    first_sentence,
    overstated,
    rate_of,
    verdict,
)
from sleuth.pipeline.answer import finish_answer
from sleuth.pipeline.answerability import says_not_found
from sleuth.pipeline.write.extractive import compose, render
from sleuth.store.codec import source_from_json, source_to_json
from sleuth.types import Confidence, ResearchRequest, Source

from .web import OfflineWeb

REPO = Path(__file__).resolve().parents[1]
CONCURRENCY = 4
LEVELS: tuple[Confidence, ...] = ("high", "medium", "low")


@dataclass(frozen=True, slots=True)
class Evidence:
    """One question and the sources a quick run kept for it."""

    id: str
    question: str
    answers: tuple[str, ...]
    answerable: bool
    sources: tuple[Source, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "question": self.question,
            "answers": list(self.answers),
            "answerable": self.answerable,
            "sources": [source_to_json(s) for s in self.sources],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Evidence:
        return cls(
            str(data["id"]),
            str(data["question"]),
            tuple(data["answers"]),
            bool(data["answerable"]),
            tuple(source_from_json(s) for s in data["sources"]),
        )

    @property
    def yes_no(self) -> bool:
        """A yes/no/maybe question (PubMedQA, HotpotQA's comparisons): scored by the verdict
        the answer states, as `sleuth eval` scores it."""
        return bool(self.answers) and all(a.lower() in VERDICTS for a in self.answers)


@dataclass(frozen=True, slots=True)
class Replayed:
    answer: str
    confidence: Confidence
    declined: bool  # opens by saying the sources do not contain the answer
    right: bool  # answerable: the gold answer (yes/no: verdict) is in the text; else declined
    first: bool | None  # the gold answer is in the answer's first sentence (None: yes/no)
    hedged: bool  # opens by saying the sources do not contain the answer, then gives it
    overstated: bool  # graded high beside a reason naming a question term the passage lacks
    verdict: str | None = None  # yes / no / maybe the answer states, for a yes/no question
    stated: bool | None = None  # yes/no question: the writer read a verdict from a sentence
    held: bool | None = None  # answerable, not yes/no: some kept page holds the gold answer


def replay(item: Evidence, sentences: int = 5) -> Replayed:
    """The extractive answer and its confidence, exactly as a quick run finishes them."""
    composition = compose(item.sources, item.question, sentences)
    raw = render(composition)
    done = finish_answer(raw, item.sources, ResearchRequest(item.question))
    declined = says_not_found(done.answer)
    stated = verdict(done.answer) if item.yes_no else None
    text = CITE_MARK.sub(" ", done.answer)
    if stated is not None:
        found = stated in {a.lower() for a in item.answers}
        first = None
    else:
        found = contains_answer(text, item.answers)
        lead = contains_answer(CITE_MARK.sub(" ", first_sentence(done.answer)), item.answers)
        first = lead and item.answerable
    right = found if item.answerable else declined
    hedged = declined and found and item.answerable and stated is None
    return Replayed(
        done.answer,
        done.confidence,
        declined,
        right,
        first,
        hedged,
        overstated(done.confidence, done.confidence_reasons),
        stated,
        composition.said is not None if item.yes_no else None,
        held_by_pages(item) if item.answerable and stated is None else None,
    )


def held_by_pages(item: Evidence) -> bool:
    """Whether a kept page, by its title or text, holds a gold answer: the most any writer can
    quote. An answer graded `high` when none does is `high` on pages that cannot answer, even
    though the question is answerable on the web at large."""
    return any(
        contains_answer(
            " ".join([s.title, s.text or " ".join(p.text for p in s.passages)]), item.answers
        )
        for s in item.sources
    )


@dataclass(frozen=True, slots=True)
class Figures:
    n: int
    first: Rate
    in_text: Rate
    declined: Rate
    hedged: Rate
    overstated: int
    verdict: Rate  # yes/no questions: the stated verdict is the gold one
    stated: Rate  # yes/no questions: the writer read a verdict from a sentence...
    stated_right: Rate  # ...and how often that one is the gold one
    given: dict[str, Rate]  # share of answers at each confidence level
    right: dict[str, Rate]  # how often an answer at that level is right
    lead_high: Rate  # answerable at high: how often the first sentence holds the answer
    held: Rate  # answerable: a kept page holds the gold answer
    unheld_high: Rate  # answerable, no kept page holds the gold answer: graded high


def figures(items: Sequence[Evidence], done: Sequence[Replayed]) -> Figures:
    pairs = list(zip(items, done, strict=True))
    return Figures(
        n=len(pairs),
        first=rate_of(r.first for _, r in pairs),
        in_text=rate_of(r.right for _, r in pairs),
        declined=rate_of(r.declined for _, r in pairs),
        hedged=rate_of(r.hedged for _, r in pairs),
        overstated=sum(r.overstated for _, r in pairs),
        verdict=rate_of(r.right if i.yes_no else None for i, r in pairs),
        stated=rate_of(r.stated for _, r in pairs),
        stated_right=rate_of(r.right for _, r in pairs if r.stated),
        given={g: rate_of(r.confidence == g for _, r in pairs) for g in LEVELS},
        right={g: rate_of(r.right for _, r in pairs if r.confidence == g) for g in LEVELS},
        lead_high=rate_of(r.first for _, r in pairs if r.confidence == "high"),
        held=rate_of(r.held for _, r in pairs),
        unheld_high=rate_of(r.confidence == "high" for _, r in pairs if r.held is False),
    )


def table(label: str, f: Figures, answerable: bool) -> str:
    rows = [f"{label} (n={f.n})"]
    if answerable and f.held.n:
        rows.append(f"  a kept page holds the answer   {fmt_rate(f.held)}")
    if answerable:
        rows.append(f"  answer in the first sentence   {fmt_rate(f.first)}")
        rows.append(f"  answer in the text             {fmt_rate(f.in_text)}")
    if answerable and f.verdict.n:
        rows.append(f"  verdict right (yes/no)         {fmt_rate(f.verdict)}")
        rows.append(f"    read from a sentence         {fmt_rate(f.stated)}")
        rows.append(f"    right when read              {fmt_rate(f.stated_right)}")
    rows.append(f"  says the sources don't say     {fmt_rate(f.declined)}")
    if answerable:
        rows.append(f"  says so, then gives the answer {fmt_rate(f.hedged)}")
    rows.append(f"  high beside a missing term     {f.overstated}")
    if answerable and f.unheld_high.n:
        rows.append(f"  no kept page holds it: high    {fmt_rate(f.unheld_high)}")
    for g in LEVELS:
        rows.append(f"  {g:6s} given {fmt_rate(f.given[g]):28s} right {fmt_rate(f.right[g])}")
    if answerable and f.lead_high.n:
        rows.append(f"    high, the first sentence holds it {fmt_rate(f.lead_high)}")
    return "\n".join(rows)


def load(path: Path) -> list[Evidence]:
    with path.open(encoding="utf-8") as lines:
        return [Evidence.from_json(json.loads(line)) for line in lines if line.strip()]


def held_out(question_id: str) -> bool:
    """Two fifths of the questions, fixed by their id: the part rules are not designed on."""
    return int(hashlib.sha256(question_id.encode()).hexdigest(), 16) % 5 < 2


def score(paths: Iterable[Path], part: str | None = None) -> str:
    out = []
    for path in paths:
        items = [i for i in load(path) if part is None or held_out(i.id) == (part == "held-out")]
        done = [replay(item) for item in items]
        kinds = {item.answerable for item in items}
        for kind in sorted(kinds, reverse=True):
            mine = [(i, r) for i, r in zip(items, done, strict=True) if i.answerable == kind]
            label = f"{path.name}: {'answerable' if kind else 'unanswerable'}"
            f = figures([i for i, _ in mine], [r for _, r in mine])
            out.append(table(label, f, kind))
    return "\n\n".join(out)


async def _research(
    questions: Sequence[Any], env: dict[str, str], files: Path | None = None
) -> list[tuple[Any, tuple[Source, ...]]]:
    """Each question's kept sources from a quick run: on the offline web, or with `files`
    only over those files (`sleuth ask --search=none --include=FILES`). A run that found
    nothing keeps none (the CLI exits 3 there)."""
    from sleuth.app.application import Sleuth
    from sleuth.errors import NoSourcesError
    from sleuth.settings import Settings

    os.environ.update(env)  # the offline web's search URL and proxy, read by the settings
    gate = asyncio.Semaphore(CONCURRENCY)
    where: dict[str, Any] = {"search": "searxng", "search_fallback": "none"}
    if files is not None:
        where = {"search": "none", "include": (str(files),)}
    async with Sleuth(Settings.from_env()) as app:

        async def one(q: Any) -> tuple[Any, tuple[Source, ...]]:
            async with gate:
                try:
                    answer = await app.ask(q.question, no_sessions=True, **where)
                except NoSourcesError:
                    return q, ()
                return q, tuple(answer.sources)

        return list(await asyncio.gather(*(one(q) for q in questions)))


def collect(args: argparse.Namespace) -> int:
    from sleuth.evaluate.corpus_web import load_docs
    from sleuth.evaluate.questions import load_questions, sample
    from sleuth.evaluate.unanswerable import hide_gold

    home = tempfile.mkdtemp(prefix="sleuth-replay-home-")
    if args.files is not None:  # the user's own files: no web, nothing hidden
        probe = [(q, a) for q, a in probe_questions(args.questions) if q.dataset == args.dataset]
        answerable = {q.id: a for q, a in probe}
        chosen = sample([q for q, _ in probe], args.limit, args.seed)
        done = asyncio.run(_research(chosen, {"SLEUTH_HOME": home}, args.files))
        return _save(args.out, [(q, r, answerable[q.id]) for q, r in done])
    chosen = [q for q in load_questions(args.questions) if q.dataset == args.dataset]
    chosen = sample(chosen, args.limit, args.seed)
    docs_path = args.shared / "bench" / "docs.jsonl"
    extra: tuple[str, ...] = ()
    if args.hidden:
        unanswerable = hide_gold(chosen, load_docs(docs_path))
        chosen = list(unanswerable.questions)
        hidden = Path(tempfile.mkstemp(prefix="sleuth-replay-hidden-")[1])
        hidden.write_text("\n".join(sorted(unanswerable.hidden_ids)) + "\n")
        extra = ("--hide-ids", str(hidden))
    web = OfflineWeb(args.shared / "tools" / "offline_web.py", docs_path, extra).wait_ready()
    try:
        done = asyncio.run(_research(chosen, {**web.env(), "SLEUTH_HOME": home}))
    finally:
        web.stop()
    return _save(args.out, [(q, r, not args.hidden) for q, r in done])


def probe_questions(path: Path) -> list[tuple[Question, bool]]:
    """The questions of a probe of the user's own files, each with whether the files answer
    it: a line marked `"answerable": false` (bench/own-files-b) has no gold answers, which
    `sleuth eval`'s format requires."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        data = json.loads(line)
        if data.get("answerable", True) is not False:
            out.append((parse_line(line, path, n), True))
            continue
        plain = json.dumps({**data, "answers": ["-"]})  # validated as any line, then emptied
        out.append((replace(parse_line(plain, path, n), answers=()), False))
    return out


def _save(out: Path, done: Sequence[tuple[Any, tuple[Source, ...], bool]]) -> int:
    with out.open("w", encoding="utf-8") as lines:
        for q, sources, answerable in done:
            item = Evidence(q.id, q.question, q.answers, answerable, sources)
            lines.write(json.dumps(item.to_json(), ensure_ascii=False) + "\n")
    print(f"{len(done)} questions -> {out}")
    return 0


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m bench.replay", description=__doc__)
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="research questions and save their kept sources")
    c.add_argument("questions", type=Path)
    c.add_argument("--dataset", default="nq_open_oracle")
    c.add_argument("--limit", type=int, default=300)
    c.add_argument("--seed", type=int, default=11)
    c.add_argument("--hidden", action="store_true", help="hide the gold pages first")
    c.add_argument(
        "--files", type=Path, help="no web: answer from these files (bench/own-files/docs)"
    )
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    s = sub.add_parser("score", help="replay the writer and confidence on saved sources")
    s.add_argument("files", type=Path, nargs="+")
    s.add_argument("--part", choices=("design", "held-out"), help="score one part of the split")
    args = ap.parse_args(argv)
    if args.command == "collect" and args.files is not None and args.hidden:
        ap.error("--hidden hides the offline web's gold pages; --files reads no web")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    if args.command == "collect":
        return collect(args)
    print(score(args.files, args.part))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
