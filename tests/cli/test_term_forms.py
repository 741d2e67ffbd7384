"""The missing-term rule reads a term in another form (issue 25), on the loopback test web: a
page that says "fourteenth" and "the United States" for a question's "14th" and "us" names no
term missing and can be `high`; a page about another film still misses the asked-for film."""

from __future__ import annotations

import pytest

from tests.cli.helpers import Pages, ask_pages
from tests.testweb.server import TestWeb

SEASON: Pages = {
    "http://tv.example.org/harbour-lights-season-14": (
        "Harbour Lights (season 14)",
        "Harbour Lights is a medical drama set on the harbour of Varnby.",
        "The fourteenth season of the United States drama Harbour Lights premiered on "
        "September 28, 2017, on the ABC network.",
        "The season has 24 episodes.",
    ),
}
OTHER_FILM: Pages = {
    "http://films.example.org/saltmarsh": (
        "Saltmarsh (film)",
        "Saltmarsh is a 1975 thriller film about a fishing town.",
        "The film was directed by Marco Vell, an Italian director, and scored by Ana Ruiz.",
    ),
}


def confidence(
    web: TestWeb, capsys: pytest.CaptureFixture[str], pages: Pages, question: str, topic: str
) -> tuple[str, str]:
    """The answer's lead and its confidence line."""
    lead, err = ask_pages(web, capsys, pages, question, topic)
    return lead, next(x for x in err.splitlines() if x.startswith("confidence · "))


def test_a_term_in_another_form_is_not_named_missing(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    question = "when did the 14th season of the us drama harbour lights air"
    lead, line = confidence(testweb_env, capsys, SEASON, question, "harbour")
    assert "September 28, 2017" in lead
    assert "does not mention" not in line
    assert line.startswith("confidence · high · ")


def test_a_page_about_another_film_does_not_answer_for_the_film(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    question = "what is the nationality of the director of the film tidewater"
    _, line = confidence(testweb_env, capsys, OTHER_FILM, question, "tidewater")
    assert not line.startswith("confidence · high")
    assert "'tidewater'" in line


CLUB: Pages = {
    "http://football.example.org/varnby-rovers-managers": (
        "List of Varnby Rovers managers",
        "Varnby Rovers is a football club founded in 1888.",
        "The longest-serving manager of Varnby Rovers is Ana Vell, who managed the club from "
        "1986 to 2013.",
        "She won 13 league titles.",
    ),
}


def test_a_common_word_the_passage_does_not_repeat_is_not_named_missing(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    """The lead never says "history"; a word that common says nothing of what the passage is
    about, so it is not named missing and does not hold the answer back from `high`."""
    question = "who is the longest serving manager in varnby rovers history"
    lead, line = confidence(testweb_env, capsys, CLUB, question, "varnby rovers")
    assert "Ana Vell" in lead
    assert "'history'" not in line
    assert line.startswith("confidence · high · ")
