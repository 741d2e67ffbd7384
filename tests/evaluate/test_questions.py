from __future__ import annotations

from pathlib import Path

import pytest

from sleuth.errors import UsageError
from sleuth.evaluate.questions import load_questions, sample, with_gold_urls

from .corpus import QUESTIONS, write_jsonl


def test_loads_questions_with_defaults(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "q.jsonl",
        [*QUESTIONS, {"question": "Is it?", "answers": "yes", "type": "yes/no/maybe"}],
    )
    qs = load_questions(path)
    assert [q.id for q in qs] == ["q1", "q2", "line-3"]
    assert qs[1].answers == ("crack open shellfish", "to open shellfish")
    assert qs[2].answers == ("yes",) and qs[2].yes_no and not qs[0].yes_no
    assert qs[2].dataset == "default"


@pytest.mark.parametrize(
    ("bad_line", "message"),
    [
        ('{"question": "x", "answers": ["a"]', "not valid JSON"),
        ('{"answers": ["a"]}', "'question' must be a non-empty string"),
        ('{"question": "x", "answers": []}', "'answers' must hold at least one"),
        ('{"question": "x", "answers": [1]}', "'answers' must be a list of strings"),
        ('["question"]', "expected a JSON object"),
    ],
)
def test_malformed_line_is_rejected_with_its_line_number(
    tmp_path: Path, bad_line: str, message: str
) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text('{"question": "ok", "answers": ["a"]}\n\n' + bad_line + "\n")
    with pytest.raises(UsageError) as caught:
        load_questions(path)
    assert f"q.jsonl:3: {message}" in str(caught.value)


def test_duplicate_ids_and_empty_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="appears more than once"):
        load_questions(write_jsonl(tmp_path / "d.jsonl", [QUESTIONS[0], QUESTIONS[0]]))
    (tmp_path / "e.jsonl").write_text("\n")
    with pytest.raises(UsageError, match="holds no questions"):
        load_questions(tmp_path / "e.jsonl")


def test_gold_urls_come_from_the_corpus_ids(tmp_path: Path) -> None:
    qs = with_gold_urls(
        load_questions(write_jsonl(tmp_path / "q.jsonl", QUESTIONS)),
        {"d-lark": "http://birds.example/wiki/Skylark"},
    )
    assert qs[0].gold_urls == ("http://birds.example/wiki/Skylark",)
    assert qs[1].gold_urls == ()


def test_sampling_is_reproducible_and_keeps_file_order(tmp_path: Path) -> None:
    rows = [{"id": f"q{i}", "question": f"q {i}", "answers": ["a"]} for i in range(50)]
    qs = load_questions(write_jsonl(tmp_path / "q.jsonl", rows))
    first, again = sample(qs, 10, seed=3), sample(qs, 10, seed=3)
    assert first == again and len(first) == 10
    assert [int(q.id[1:]) for q in first] == sorted(int(q.id[1:]) for q in first)
    assert sample(qs, 10, seed=4) != first
    assert sample(qs, 5, None) == qs[:5]
