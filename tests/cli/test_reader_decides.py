"""The reader decides whether the sources answer (issue 25), on the loopback test web: a
question worded with synonyms of the page's words is answered, not declined, and an answer that
opens with "not found" never goes on to give the answer."""

from __future__ import annotations

import pytest

from sleuth.evaluate.score import declines
from tests.cli.test_reader_lead import Pages, ask
from tests.testweb.server import TestWeb

PAGES: Pages = {
    "http://rinks.example.org/lindqvist-rink": (
        "Lindqvist Ice Rink",
        "The Lindqvist Ice Rink is an indoor skating hall on the harbour of Varnby.",
        "A season pass at the Lindqvist Ice Rink is priced at 180 euros for adults.",
        "The hall was renovated in 2011 and seats 900 spectators.",
    ),
    "http://ferries.example.org/corvane-ferry": (
        "Corvane Ferry",
        "The Corvane Ferry links the island of Corvane with the mainland port of Selby.",
        "The vessel makes the crossing in about forty minutes in calm weather.",
        "Bicycles travel free of charge.",
    ),
}
CASES = [
    ("how much does a season ticket for the lindqvist rink cost", "lindqvist", "180 euros"),
    ("how long does the corvane ferry crossing last", "corvane", "forty minutes"),
]


@pytest.mark.parametrize(("question", "topic", "answer"), CASES)
def test_a_question_in_other_words_is_answered_not_declined(
    testweb_env: TestWeb,
    capsys: pytest.CaptureFixture[str],
    question: str,
    topic: str,
    answer: str,
) -> None:
    lead = ask(testweb_env, capsys, PAGES, question, topic)
    assert not declines(lead)
    assert answer in lead
