"""Train the reader (src/sleuth/pipeline/reader.py) on the dev questions' saved evidence.

    python -m bench.reader train            # collect evidence on the offline web, then fit
    python -m bench.reader train --evidence nq.jsonl nq-hidden.jsonl   # fit only

Evidence comes from `bench.replay collect`: the kept sources of a quick run for each NQ dev
question, and for its unanswerable variant (gold pages hidden). Every sentence the extractive
writer would consider is labelled "holds a gold answer" or not (never, for an unanswerable
question), and each head — lexical, and with the cross-encoder's score when the `reader` extra
is installed — is a logistic model with an L2 penalty fitted by Newton's method (numpy). The
questions bench.replay's figures are quoted on (seeds 1 and 2, 200 each) are left out, so those
figures are measured on questions neither the heads nor the cross-encoder (bench/reader_ce.py)
saw. Thresholds are set on the training questions: `answers_at` so that, with the writer's
evidence gate, DECLINE_SHARE of the unanswerable ones are declined; `high_at` the lowest
probability whose leads hold the answer HIGH_PRECISION of the time.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from sleuth.evaluate.questions import load_questions, sample
from sleuth.evaluate.score import contains_answer
from sleuth.pipeline.asks import asks
from sleuth.pipeline.crossenc import MODEL, shipped_encoder
from sleuth.pipeline.reader import ENCODED, FEATURES, READ, Encoder, Head, features
from sleuth.pipeline.sentences import score, sentences, title_cover

from .replay import REPO, Evidence, load

HELD_OUT_SEEDS = (1, 2)
HELD_OUT_N = 200
L2 = 1.0
DECLINE_SHARE = 0.85
HIGH_PRECISION = 0.93
OUT = REPO / "src" / "sleuth" / "pipeline" / "reader.json"

Rows = tuple[list[list[float]], list[int], list[bool]]


def held_out(questions: Path) -> set[str]:
    nq = [q for q in load_questions(questions) if q.dataset == "nq_open_oracle"]
    return {q.id for seed in HELD_OUT_SEEDS for q in sample(nq, HELD_OUT_N, seed)}


def rows(item: Evidence, encoder: Encoder | None = None) -> Rows:
    """Features, labels and whether each sentence passes the writer's evidence gate, for the
    sentences the head reads (best word overlap first), as `Reader.read` computes them."""
    wanted = asks(item.question)
    titles = title_cover(item.sources, wanted)
    ranked = sorted(score(sentences(item.sources), wanted, titles), key=lambda s: -s.value)
    top = ranked[: ENCODED if encoder is not None else READ]
    subject = max(titles.values(), default=0.0)
    best = ranked[0].value if ranked else 0.0
    xs = [
        features(s, wanted, titles.get(s.cand.number, 0.0), subject, best, i)
        for i, s in enumerate(top)
    ]
    if encoder is not None and top:
        pages = {s.number: s.title for s in item.sources}
        scores = encoder.score(
            item.question, [s.cand.text for s in top], [pages[s.cand.number] for s in top]
        )
        xs = [[*x, v] for x, v in zip(xs, scores, strict=True)]
    ys = [int(item.answerable and contains_answer(s.cand.text, item.answers)) for s in top]
    gate = [s.typed is not False for s in top]
    return xs, ys, gate


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


def thresholds(head: Head, data: Sequence[tuple[bool, Rows]]) -> tuple[float, float]:
    tops: list[tuple[float, bool, bool]] = []  # (lead's probability, answerable, lead is right)
    for answerable, (xs, ys, gate) in data:
        passing = [(head.probability(x), y) for x, y, ok in zip(xs, ys, gate, strict=True) if ok]
        p, y = max(passing, default=(0.0, 0))
        tops.append((p, answerable, bool(y)))
    unanswerable = sorted(p for p, a, _ in tops if not a)
    answers_at = unanswerable[int(DECLINE_SHARE * len(unanswerable))] if unanswerable else 0.5
    high_at = 1.0
    for p, _, _ in sorted(tops, key=lambda t: -t[0]):
        above = [a and r for q, a, r in tops if q >= p]
        if sum(above) / len(above) >= HIGH_PRECISION:
            high_at = p
    return round(answers_at, 4), round(max(high_at, answers_at), 4)


def train_head(data: Sequence[tuple[bool, Rows]]) -> Head:
    xs = [x for _, (rx, _, _) in data for x in rx]
    ys = [y for _, (_, ry, _) in data for y in ry]
    w = fit(np.hstack([np.array(xs), np.ones((len(xs), 1))]), np.array(ys, dtype=float))
    head = Head(tuple(float(v) for v in w[:-1]), float(w[-1]), 0.5, 0.5)
    answers_at, high_at = thresholds(head, data)
    return Head(head.weights, head.bias, answers_at, high_at)


def train(evidence: Sequence[Path], questions: Path, out: Path) -> None:
    skip = held_out(questions)
    items = [i for path in evidence for i in load(path) if i.id not in skip]
    heads = {"lexical": train_head([(i.answerable, rows(i)) for i in items])}
    encoder = shipped_encoder()
    if encoder is not None:
        heads["cross_encoder"] = train_head([(i.answerable, rows(i, encoder)) for i in items])
    data = {"features": list(FEATURES)} | {k: h.to_json() for k, h in heads.items()}
    data["trained_on"] = {
        "questions": len(items),
        "answerable": sum(i.answerable for i in items),
        "held_out": f"NQ dev seeds {HELD_OUT_SEEDS}, {HELD_OUT_N} each",
        "evidence_sha256": _digest(evidence),
        "cross_encoder_sha256": _digest([out.parent / MODEL]) if encoder else None,
    }
    out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    for name, head in heads.items():
        names = [*FEATURES, "cross_encoder"][: len(head.weights)]
        weights = zip(names, head.weights, strict=True)
        print(name + ": " + ", ".join(f"{n} {w:+.2f}" for n, w in weights))
        print(f"  bias {head.bias:+.3f} answers_at {head.answers_at} high_at {head.high_at}")
    print(f"-> {out}")


def _digest(paths: Sequence[Path]) -> str:
    h = hashlib.sha256()
    for path in paths:
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def collect(questions: Path, work: Path) -> list[Path]:
    """Evidence for every NQ dev question, answerable and with its gold pages hidden."""
    out = []
    for hidden in (False, True):
        path = work / f"nq{'-hidden' if hidden else ''}.jsonl"
        cmd = [sys.executable, "-m", "bench.replay", "collect", str(questions), "--limit", "1000"]
        cmd += ["--out", str(path), *(["--hidden"] if hidden else [])]
        subprocess.run(cmd, check=True, cwd=REPO)
        out.append(path)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.reader", description=__doc__)
    ap.add_argument("command", choices=["train"])
    ap.add_argument("--questions", type=Path, default=REPO.parent / "shared/bench/questions.jsonl")
    ap.add_argument("--evidence", type=Path, nargs="*", help="saved evidence (skip collecting)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    evidence = args.evidence or collect(args.questions, Path(tempfile.mkdtemp(prefix="reader-")))
    train(evidence, args.questions, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
