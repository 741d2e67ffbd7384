"""Issue 27, "The first hour, round two": the small frictions of the CLI's output, reproduced
offline through the real entry point (`--search=none --include=FILES`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sleuth.text import split_sentences
from tests.cli.helpers import run

ORWELL = (
    "# George Orwell\n\n"
    'George Orwell\'s best-known novel is "Nineteen Eighty-Four." It was published in 1949 '
    "by Secker and Warburg. His other famous novel is “Animal Farm.” It appeared in 1945.\n\n"
    '"It was a bright cold day in April. The clocks were striking thirteen," the novel '
    "begins. Orwell's novel about Winston Smith was written on the island of Jura.\n"
)


def test_a_closing_quote_stays_with_the_sentence_it_closes() -> None:
    text = 'He wrote "Nineteen Eighty-Four." It sold. She said (it was "late.") Then left.'
    assert [s for _, s in split_sentences(text)] == [
        'He wrote "Nineteen Eighty-Four."',
        "It sold.",
        'She said (it was "late.")',
        "Then left.",
    ]


def test_the_extractive_answer_never_shows_half_a_quotation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "orwell.md"
    notes.write_text(ORWELL, encoding="utf-8")
    question = "What is George Orwell's best-known novel Nineteen Eighty-Four about?"
    args = ["ask", question, "--search=none", f"--include={notes}", "--json", "--no-sessions"]
    code, out, err = run(args, capsys)
    assert code == 0, err
    answer = json.loads(out)["answer"]
    assert '"Nineteen Eighty-Four [1]."' in answer
    for sentence in (s for _, s in split_sentences(answer)):
        assert sentence.count('"') % 2 == 0, sentence
        assert sentence.count("“") == sentence.count("”"), sentence
