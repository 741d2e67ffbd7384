"""bench/reader.py: the reader learns only from the dev questions it may — NQ and HotpotQA
full-wiki ones with an answer to find in the text — never from bench.replay's reporting
samples, the measured HotpotQA and MuSiQue rows, or a question sharing a gold page with them."""

from __future__ import annotations

import json
from pathlib import Path

from bench.reader import held_out, trainable


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
