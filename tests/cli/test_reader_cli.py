"""The reader on the user's own files (issue 25): a question phrased in other words than the
file's is answered, not declined, and the answer never opens with "not found" only to give the
answer after it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import run

NOTES = """# Courier handbook

Parcels marked urgent are delivered within four hours of pickup inside the city.
Standard parcels reach most addresses in two working days.
The depot closes at eight in the evening on weekdays.

# Pay

On-call couriers receive a flat supplement of 40 euros for each weekend shift.
"""

CASES = [
    ("how quickly do urgent parcels arrive?", "four hours"),
    ("how much extra do on-call couriers earn for a weekend shift?", "40 euros"),
]


@pytest.mark.parametrize(("question", "fact"), CASES)
def test_a_question_in_other_words_is_answered_not_declined(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], question: str, fact: str
) -> None:
    notes = tmp_path / "handbook.md"
    notes.write_text(NOTES, encoding="utf-8")
    code, out, err = run(
        ["ask", question, "--search=none", f"--include={notes}", "--no-sessions"], capsys
    )
    assert code == 0, err
    body = out.split("\n\n", 1)[1]
    assert not body.startswith("The sources found do not contain"), body
    assert fact in body.split("\n\n", 1)[0]  # the lead answers
