from __future__ import annotations

import json
from pathlib import Path

import pytest

from sleuth.cli.main import main

from .corpus import DOCS, QUESTIONS, write_jsonl


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(args)
        code: object = 0
    except SystemExit as done:
        code = done.code
    out, err = capsys.readouterr()
    return (code if isinstance(code, int) else 1), out, err


def test_eval_on_a_tiny_questions_file_and_corpus(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    questions = write_jsonl(tmp_path / "q.jsonl", QUESTIONS)
    corpus = write_jsonl(tmp_path / "docs.jsonl", DOCS)
    out_dir = tmp_path / "reports"
    code, out, err = run(
        ["eval", str(questions), "--corpus", str(corpus), "--out", str(out_dir)], capsys
    )
    assert code == 0, err
    assert "answer in kept passages" in out and "birds (n=1)" in out and "all (n=2)" in out
    assert "[2/2]" in err
    report = json.loads(next(out_dir.glob("eval-*.json")).read_text())
    rows = {r["id"]: r for r in report["questions"]}
    assert rows["q1"]["gold_kept"] == 1 and rows["q1"]["answer_in_passages"] is True
    assert rows["q2"]["answer_in_text"] is True and rows["q2"]["ok"] is True
    assert report["summary"]["all"]["gold_any"]["value"] == 1.0
    assert report["summary"]["all"]["gold_any"]["ci95"][1] == 1.0
    markdown = next(out_dir.glob("eval-*.md")).read_text()
    assert "| q1 | birds | 1/1 |" in markdown


def test_eval_says_deep_as_ask_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One vocabulary: `--deep[=N]` as in ask; the old `--depth deep` still works, with a note."""
    questions = write_jsonl(tmp_path / "q.jsonl", QUESTIONS[:1])
    corpus = write_jsonl(tmp_path / "docs.jsonl", DOCS)
    base = ["eval", str(questions), "--corpus", str(corpus)]
    for extra, rounds in ((["--deep=1"], 1), (["--depth", "deep"], 2)):
        out_dir = tmp_path / f"r{rounds}"
        code, _, err = run([*base, *extra, "--out", str(out_dir)], capsys)
        assert code == 0, err
        meta = json.loads(next(out_dir.glob("eval-*.json")).read_text())["meta"]
        assert (meta["depth"], meta["deep_rounds"]) == ("deep", rounds)
        assert ("--depth deep is --deep now" in err) is (extra[0] == "--depth")
    code, out, _ = run(["eval", "--help"], capsys)
    assert "--deep" in out and "--depth" not in out


def test_eval_rejects_a_malformed_line_with_its_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps(QUESTIONS[0]) + "\n{not json\n")
    code, out, err = run(
        ["eval", str(questions), "--corpus", str(write_jsonl(tmp_path / "d.jsonl", DOCS))], capsys
    )
    assert code == 1 and out == ""
    assert "q.jsonl:2: not valid JSON" in err


def test_eval_limit_and_sample_pick_questions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    questions = write_jsonl(tmp_path / "q.jsonl", QUESTIONS)
    corpus = write_jsonl(tmp_path / "docs.jsonl", DOCS)
    code, out, err = run(
        [
            "eval",
            str(questions),
            "--corpus",
            str(corpus),
            "--limit",
            "1",
            "--sample",
            "5",
            "--out",
            str(tmp_path / "r"),
        ],
        capsys,
    )
    assert code == 0, err
    assert "[1/1]" in err and "all (n=" not in out


def test_eval_unanswerable_hides_gold_pages_and_prints_calibration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = {
        "id": "d-birds",
        "url": "http://birds.example/wiki/Songbirds",
        "title": "Songbirds",
        "text": "Songbirds such as the skylark and the nightingale are known for complex song. "
        "Many songbirds sing at dawn to defend a territory.",
    }
    questions = write_jsonl(tmp_path / "q.jsonl", QUESTIONS[:1])
    corpus = write_jsonl(tmp_path / "docs.jsonl", [*DOCS, extra])
    out_dir = tmp_path / "reports"
    code, out, err = run(
        ["eval", str(questions), "--corpus", str(corpus), "--out", str(out_dir), "--unanswerable"],
        capsys,
    )
    assert code == 0, err
    assert "Calibration (1 questions made unanswerable)" in out
    assert "| confidence | answerable: given |" in out
    report = json.loads(next(out_dir.glob("eval-*.json")).read_text())
    (hidden,) = report["unanswerable"]["questions"]
    assert hidden["gold_kept"] == 0 and hidden["ok"] is True  # the gold page was not served
    assert hidden["declined"] is True and hidden["confidence"] == "low"
    assert report["unanswerable"]["calibration"]["unanswerable"]["low"]["right"]["hits"] == 1


def test_eval_unanswerable_needs_a_corpus(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    questions = write_jsonl(tmp_path / "q.jsonl", QUESTIONS)
    code, _, err = run(["eval", str(questions), "--unanswerable"], capsys)
    assert code == 1 and "--unanswerable needs --corpus" in err
