"""bench/reader.py: the reader learns only from the dev questions it may — NQ and HotpotQA
full-wiki ones with an answer to find in the text — never from bench.replay's reporting
samples, the measured HotpotQA and MuSiQue rows, or a question sharing a gold page with them."""

from __future__ import annotations

import json
from pathlib import Path

import bench.reader
import numpy as np
import pytest
from bench.reader import (
    PARTS,
    Rows,
    fit_ranker,
    held_out,
    pairs,
    part,
    train,
    train_heads,
    trainable,
)
from bench.replay import Evidence

from sleuth.pipeline.reader import FEATURES, Inputs
from sleuth.types import Passage, Source


def line(qid: str, dataset: str, answers: list[str], gold: list[str]) -> str:
    row = {"id": qid, "question": f"question {qid}?", "answers": answers, "dataset": dataset}
    return json.dumps(row | {"gold_doc_ids": gold})


def test_trainable_questions(tmp_path: Path) -> None:
    rows = [line(f"nq/{i}", "nq_open_oracle", ["Paris"], [f"p{i}"]) for i in range(250)]
    rows += [
        line("full/kept", "hotpotqa_fullwiki_amor500", ["Oslo"], ["a"]),
        line("full/yes", "hotpotqa_fullwiki_amor500", ["yes"], ["b"]),
        line("full/shares", "hotpotqa_fullwiki_amor500", ["Bergen"], ["m1", "c"]),
        line("hotpot/m", "hotpotqa_hipporag_train100", ["Rome"], ["m1"]),
        line("musique/m", "musique_hipporag_train100", ["Milan"], ["m2"]),
        line("pubmed/p", "pubmedqa_pqal", ["no"], ["d"]),
    ]
    questions = tmp_path / "questions.jsonl"
    questions.write_text("\n".join(rows) + "\n")
    allowed, reported = trainable(questions), held_out(questions)
    assert reported and not allowed & reported
    assert allowed == {f"nq/{i}" for i in range(250)} - reported | {"full/kept"}


def test_a_part_model_never_learns_its_own_part(tmp_path: Path) -> None:
    """`pairs --part K` holds out part K's questions (both variants of each) and leaves the
    reporting samples out, so the model it trains can score part K out of fold."""
    ids = [f"nq/{i}" for i in range(250)]
    questions = tmp_path / "questions.jsonl"
    questions.write_text("\n".join(line(i, "nq_open_oracle", ["Paris"], [i]) for i in ids) + "\n")
    page = "Paris is the capital of France. It lies on the Seine."
    sources = (Source(1, "http://example.test/paris", "Paris", 1.0, (Passage(page, 1.0, 0),),
                      text=page),)  # fmt: skip
    evidence = tmp_path / "evidence.jsonl"
    with evidence.open("w") as f:
        for i in ids:
            for answerable in (True, False):
                item = Evidence(
                    i, "What is the capital of France?", ("Paris",), answerable, sources
                )
                f.write(json.dumps(item.to_json()) + "\n")
    reported, allowed = held_out(questions), trainable(questions)
    for only in range(PARTS):
        out = tmp_path / f"pairs-{only}.jsonl"
        pairs([evidence], questions, out, only)
        rows = [json.loads(r) for r in out.read_text().splitlines()]
        split = {(r["id"], r["answerable"]): r["split"] for r in rows}
        assert {i for i, _ in split} == allowed and not allowed & reported
        for (qid, _), kind in split.items():
            assert kind == ("heldout" if part(qid) == only else "train")
    assert {part(i) for i in allowed} == set(range(PARTS))


def test_out_of_fold_scores_without_the_cross_encoder_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`train --parts` without the reader extra says so rather than fitting in-sample heads."""
    monkeypatch.setattr(bench.reader, "shipped_encoder", lambda: None)
    questions = tmp_path / "questions.jsonl"
    questions.write_text(line("nq/0", "nq_open_oracle", ["Paris"], ["p"]) + "\n")
    evidence = tmp_path / "evidence.jsonl"
    evidence.write_text("")
    out = tmp_path / "reader.json"
    with pytest.raises(SystemExit, match="reader extra"):
        train([evidence], questions, out, parts=[tmp_path / "a", tmp_path / "b"])
    assert not out.exists()


def _questions(n: int = 60) -> list[Rows]:
    """Synthetic questions of 8 sentences: in the answerable ones (two in three) one sentence
    holds the answer and has more near coverage; every sentence of a question shares its
    subject cover, higher when the question is answerable."""
    rng = np.random.default_rng(7)
    near, subject = FEATURES.index("near_coverage"), FEATURES.index("subject_cover")
    data = []
    for q in range(n):
        answerable = q % 3 != 0
        shared = rng.uniform(0.6, 1.0) if answerable else rng.uniform(0.0, 0.4)
        xs = [list(rng.uniform(0, 1, len(FEATURES))) for _ in range(8)]
        ys = [0] * 8
        if answerable:
            ys[q % 8] = 1
            xs[q % 8][near] += 1.0
        for x in xs:
            x[subject] = shared
        data.append(Rows(answerable, Inputs(xs, []), ys, [True] * 8, [0.5] * 8, shared))
    return data


def test_rankers_are_fitted_only_when_asked() -> None:
    """The shipped reader has no ranker (docs/reader.md, seventh round): `train` fits them
    only with `--rank`."""
    data = _questions()
    assert all(h.ranker is None for h in train_heads(data).values())
    ranked = train_heads(data, rank=True)
    assert all(h.ranker is not None and h.answers is not None for h in ranked.values())


def test_the_ranker_learns_what_tells_a_questions_sentences_apart() -> None:
    """`fit_ranker` fits within each question: a feature every sentence of a question shares
    (how well its pages name the subject) gets no weight, however well it tells answerable
    questions from unanswerable ones; the one that marks the answering sentence leads."""
    near, subject = FEATURES.index("near_coverage"), FEATURES.index("subject_cover")
    data = _questions()
    ranker = fit_ranker(data, encoded=False)
    assert ranker.weights[near] > 1.0
    assert abs(ranker.weights[subject]) < 1e-6
    answerable = [r for r in data if any(r.ys)]
    picked = [int(np.argmax(ranker.scores(r.read, encoded=False))) for r in answerable]
    assert sum(r.ys[i] for r, i in zip(answerable, picked, strict=True)) >= 36
