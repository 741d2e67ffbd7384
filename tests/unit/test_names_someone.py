"""`asks.names_someone`: whether a sentence can answer "who" (issue 25)."""

from __future__ import annotations

import pytest

from sleuth.pipeline.asks import asks, names_someone

WHO = asks("Who founded Example Cloud?")


@pytest.mark.parametrize(
    "sentence",
    [
        "Example Cloud was founded by Larry Page and Sergey Brin.",
        "It was started in a garage by Varnholt in 1921.",  # one word, after the first
        "Odessa Varn founded the company.",  # a two-word name opening the sentence
        "The company was set up by a team at Google.",  # an organisation
    ],
)
def test_a_sentence_naming_someone_the_question_does_not(sentence: str) -> None:
    assert names_someone(WHO, sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        # the question's own name, and capitals by position or all capitals only
        "Example Cloud records an audit log entry, such as changing an IAM policy or an API key.",
        "Audit logs are retained for 90 days by default.",
        "When an entry expires it is deleted.",
    ],
)
def test_a_sentence_naming_no_one_else(sentence: str) -> None:
    assert not names_someone(WHO, sentence)
