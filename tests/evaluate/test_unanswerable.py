"""The unanswerable arm and the calibration table (issue 10, build 6)."""

from __future__ import annotations

from dataclasses import replace

from sleuth.evaluate.calibration import calibrate, calibration_json, calibration_table
from sleuth.evaluate.corpus_web import Doc
from sleuth.evaluate.questions import Question
from sleuth.evaluate.score import Score, declines, first_sentence
from sleuth.evaluate.unanswerable import hide_gold

from .rows import row as base_row


def row(**kw: object) -> Score:
    return replace(base_row("q", True), **kw)  # type: ignore[arg-type]


DOCS = [
    Doc(
        "g1",
        "http://w.example/Nobel",
        "Nobel Prize in Physics",
        "First awarded to Wilhelm Röntgen.",
    ),
    Doc("g2", "http://w.example/Tower", "Eiffel Tower", "Completed in 1889."),
    Doc("o1", "http://w.example/X-rays", "X-rays", "X-rays were discovered by Röntgen in 1895."),
    Doc("o2", "http://w.example/Paris", "Paris", "Paris is the capital of France."),
]


def q(qid: str, answers: tuple[str, ...], gold: str) -> Question:
    return Question(qid, f"question {qid}", answers, gold_doc_ids=(gold,))


def test_hidden_gold_keeps_only_questions_no_other_page_answers() -> None:
    questions = [
        q("nobel", ("Wilhelm Conrad Röntgen",), "g1"),  # another page names "Röntgen"
        q("tower", ("1889",), "g2"),
        Question("verdict", "is it?", ("yes",), kind="yes/no/maybe", gold_doc_ids=("g2",)),
    ]
    hidden = hide_gold(questions, DOCS)
    assert hidden.hidden_ids == {"g1", "g2"}
    assert [x.id for x in hidden.questions] == ["tower"]
    assert [d.id for d in hidden.visible(DOCS)] == ["o1", "o2"]


def test_declines_reads_the_opening_sentence_in_any_wording() -> None:
    assert declines("The sources found do not contain the answer to this question: x.")
    assert declines("## Overview\n\nNone of the sources says who designed it. They do say [1].")
    assert declines("I could not find the answer in the pages read.")
    assert not declines("Canberra is the capital [1]. The sources do not say when it was founded.")
    assert first_sentence("**TL;DR:** Canberra [1]. More.") == "Canberra [1]."


def test_calibration_puts_both_arms_side_by_side() -> None:
    answerable = [
        row(confidence="high", answer_in_text=True, answer_in_lead=True),
        row(confidence="high", answer_in_text=True, answer_in_lead=False),  # further down
        row(confidence="high", answer_in_text=False, answer_in_lead=False),
        row(confidence="low", answer_in_text=True),
    ]
    unanswerable = [row(confidence="low", declined=True), row(confidence="high", declined=False)]
    cal = calibrate(answerable, unanswerable)
    assert (cal.answerable["high"].given.hits, cal.answerable["high"].given.n) == (3, 4)
    assert cal.answerable["high"].right.hits == 2
    assert (cal.answerable["high"].lead.hits, cal.answerable["high"].lead.n) == (1, 3)
    assert cal.unanswerable["low"].right.hits == 1 and cal.unanswerable["high"].right.hits == 0
    assert cal.unanswerable["high"].lead.n == 0
    assert "| high | 0.75 [" in calibration_table(cal)
    assert "| 0.67 [" in calibration_table(cal) and "| 0.33 [" in calibration_table(cal)
    assert calibration_json(cal)["answerable"]["high"]["lead"]["n"] == 3
    assert "lead" not in calibration_json(cal)["unanswerable"]["high"]


def test_calibration_says_how_often_a_kept_passage_holds_the_answer() -> None:
    """A `high` answer whose kept passages hold no gold answer is `high` on pages that cannot
    answer: its own column, so the table shows it rather than hiding it among wrong answers."""
    answerable = [
        row(confidence="high", answer_in_text=True, answer_in_passages=True),
        row(confidence="high", answer_in_text=False, answer_in_passages=False),
        row(confidence="low", answer_in_text=False, answer_in_passages=None),  # yes/no
    ]
    cal = calibrate(answerable, [row(confidence="low", declined=True)])
    assert (cal.answerable["high"].held.hits, cal.answerable["high"].held.n) == (1, 2)
    assert cal.answerable["low"].held.n == 0 and cal.unanswerable["low"].held.n == 0
    table = calibration_table(cal)
    assert "answerable: a kept passage holds it" in table
    assert table.splitlines()[2].count("| 0.50 [") == 2  # right and held, both 1 of 2
    assert calibration_json(cal)["answerable"]["high"]["held"]["n"] == 2
    assert "held" not in calibration_json(cal)["unanswerable"]["high"]


def test_the_first_sentence_is_split_as_the_pipeline_splits() -> None:
    hymn = '"What a Friend" is a hymn written by Joseph M. Scriven in 1855 [1]. It was set later.'
    assert "Scriven" in first_sentence(hymn)
    assert "premiere in 2018" in first_sentence("Miz & Mrs. will premiere in 2018. Later [1].")
    assert first_sentence("Canberra is the capital. [2][3] It was founded in 1913.") == (
        "Canberra is the capital. [2][3]"
    )
    assert "1913" not in first_sentence("Canberra is the capital [1]. It was founded in 1913.")
