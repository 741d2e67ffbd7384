"""The names a sentence states and what it says about its subject (pipeline/names.py)."""

from __future__ import annotations

import pytest

from sleuth.pipeline.names import names, predicate
from sleuth.pipeline.support import supports
from sleuth.types import Passage, Source


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("The park is in British Columbia, Canada.", {"british", "columbia", "canada"}),
        ("George Orwell wrote Animal Farm.", {"george", "orwell", "animal", "farm"}),
        ("In May 2020, NASA launched the mission.", {"nasa"}),  # a month is a date, not a name
        ("Zephyr widgets are radioactive.", set()),  # a lone capital opening a sentence
        ("The answer: Québec's capital is old.", set()),  # a new clause after a colon
        ("How To Configure Audit Logs In Example Cloud", set()),  # a heading in title case
    ],
)  # fmt: skip
def test_names(sentence: str, expected: set[str]) -> None:
    assert names(sentence) == expected


def test_the_predicate_is_what_follows_the_first_verb_of_being() -> None:
    assert predicate("Zephyr widgets are radioactive.") == {"radioactiv"}
    assert predicate("Bush won and became the president-elect.") == {"president-elect"}
    assert predicate("Orwell wrote it.") == set()  # no split: the rule does not apply


SOURCE = Source(
    1,
    "http://en.example.org/wiki/Quebec_City",
    "Quebec City",
    1.0,
    (Passage("Québec City is the capital of the province of Québec in Canada.", 1.0, 0),),
)


@pytest.mark.parametrize(
    ("sentence", "supported"),
    [
        ("Quebec City is the capital of the province of Quebec.", True),  # accents folded
        ("Québec City is the capital of the province of Ontario.", False),
        ("Québec City is the capital of the province of Québec in France.", False),
        ("Québec City is radioactive.", False),  # only its subject matches
    ],
)
def test_support_needs_the_names_and_a_word_of_the_predicate(
    sentence: str, supported: bool
) -> None:
    assert supports(sentence, SOURCE, 0.4) is supported
