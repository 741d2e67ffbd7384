"""`asks.says_what_was`: a sentence telling what the asked thing was before, for a question
asking what it is now (issue 25: "Melbourne was the initial capital" led "what is the capital
of Australia")."""

from __future__ import annotations

import pytest

from sleuth.pipeline.asks import asks, says_what_was


@pytest.mark.parametrize(
    ("question", "sentence"),
    [
        ("what is the capital of veridia", "Lindhaven was the initial capital of Veridia."),
        ("what is the capital city of veridia", "Lindhaven was the first capital city."),
        ("who is the coach of the orlen rovers", "Ada Brill was their former head coach."),
        ("who currently hosts the show", "Tom Vale served as the original host until 1990."),
    ],
)
def test_a_sentence_saying_what_was_for_a_question_asking_what_is(
    question: str, sentence: str
) -> None:
    assert says_what_was(asks(question), sentence)


@pytest.mark.parametrize(
    ("question", "sentence"),
    [
        # the question asks about the past or about the first one
        ("what was the capital of veridia in 1900", "Lindhaven was the initial capital."),
        ("what is the first capital of veridia", "Lindhaven was the initial capital."),
        ("who is the original singer of the song", "Ada Brill was the original singer."),
        # the earlier thing is not one the question names, or only a name was first used
        ("what is the capital of veridia", "Port Amsel was the first city to get trams."),
        ("who is the base named after", "The base, originally known as Midwest Depot, is named"),
        # what the thing is now
        ("what is the capital of veridia", "Port Amsel continues to serve as the capital."),
    ],
)
def test_other_sentences_and_questions(question: str, sentence: str) -> None:
    assert not says_what_was(asks(question), sentence)
