"""The lead answers (issue 25), on the loopback test web: pages shaped like the ones that made
the old writer lead with a distractor — a "when was X built" page that also dates a rival
monument, a "capital of" page that opens on how many capitals there are, a "largest city" page
that praises the country first — are answered by their answering sentence, first. A page that
first says what the capital *was* is not led by that sentence when the question asks what it
is."""

from __future__ import annotations

import pytest

from tests.cli.helpers import Pages, ask_pages
from tests.testweb.server import TestWeb

PAGES: Pages = {
    "http://monuments.example.org/harrow-bell-tower": (
        "Harrow Bell Tower",
        "The Harrow Bell Tower is a stone campanile on the market square of Orlen.",
        "The nearby Weir Obelisk, a rival monument in the next valley, was finished in 1884 "
        "after a decade of quarrels over its cost.",
        "Construction of the Harrow Bell Tower began in 1902 and it was completed in 1907, "
        "when its six bells were hung.",
        "Visitors climb 212 steps to the bell chamber.",
    ),
    "http://atlas.example.org/veridia": (
        "Veridia",
        "There are three seats of government in the island nation of Veridia, a legacy of its "
        "federation.",
        "The capital of Veridia is Port Amsel, where the parliament and the supreme court sit.",
        "Veridia exports timber and dried fish.",
    ),
    "http://atlas.example.org/norland-cities": (
        "Cities of Norland",
        "Norland is highly urbanized, with four in five people living in towns.",
        "The largest city in Norland is Castelmoor, with about 2.1 million inhabitants.",
        "Its second city, Brightwater, is a port on the eastern coast.",
    ),
}
# The same facts where the answering sentence shares few of the question's words and a
# distractor shares many: the reader does not pick these yet (issue 25 stays open).
HARD: Pages = {
    "http://monuments.example.org/harrow-bell-tower": (
        "Harrow Bell Tower",
        "The Harrow Bell Tower is a stone campanile on the market square of Orlen.",
        "The Harrow Bell Tower was built to stand taller than the Weir Obelisk, which was "
        "finished in 1884.",
        "Work began in 1902 and was completed in 1907, when its six bells were hung.",
        "Visitors climb 212 steps to the bell chamber.",
    ),
    "http://atlas.example.org/veridia": (
        "Veridia",
        "There are three capital cities of Veridia, one for each of its former kingdoms.",
        "Port Amsel is the seat of the parliament and the supreme court.",
        "Veridia exports timber and dried fish.",
    ),
    "http://atlas.example.org/norland-cities": (
        "Cities of Norland",
        "Norland is highly urbanized, and its largest cities grew fast after 1950.",
        "Castelmoor, with about 2.1 million inhabitants, is the most populous.",
        "Its second city, Brightwater, is a port on the eastern coast.",
    ),
}
# What the capital was, then what it became: the question asks what it is now.
FORMER: Pages = {
    "http://atlas.example.org/capitals-of-veridia": (
        "List of Veridian capital cities",
        "Lindhaven was the initial capital of Veridia following the 1890 union of the isles.",
        "In 1925, the seat of government was moved to the newly built city of Port Amsel, "
        "which continues to serve as the national capital.",
        "Each of the four isles also keeps a provincial capital.",
    ),
}
CASES = [
    ("when was the harrow bell tower built", "harrow", "1907"),
    ("what is the capital of veridia", "veridia", "Port Amsel"),
    ("what is the largest city in norland", "norland", "Castelmoor"),
]


def ask(
    web: TestWeb, capsys: pytest.CaptureFixture[str], pages: Pages, question: str, topic: str
) -> str:
    lead, err = ask_pages(web, capsys, pages, question, topic, only_topic=True)
    assert "confidence · low" not in err
    return lead


@pytest.mark.parametrize(("question", "topic", "answer"), CASES)
def test_the_lead_answers(
    testweb_env: TestWeb,
    capsys: pytest.CaptureFixture[str],
    question: str,
    topic: str,
    answer: str,
) -> None:
    assert answer in ask(testweb_env, capsys, PAGES, question, topic)


@pytest.mark.xfail(strict=True, reason="the reader still leads with the distractor (issue 25)")
@pytest.mark.parametrize(("question", "topic", "answer"), CASES)
def test_the_lead_answers_when_a_distractor_shares_more_words(
    testweb_env: TestWeb,
    capsys: pytest.CaptureFixture[str],
    question: str,
    topic: str,
    answer: str,
) -> None:
    assert answer in ask(testweb_env, capsys, HARD, question, topic)


def test_a_question_asking_what_is_now_is_not_led_by_what_was(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    lead = ask(testweb_env, capsys, FORMER, "what is the capital of veridia", "veridia")
    assert "Port Amsel" in lead and "Lindhaven" not in lead


def test_a_question_asking_what_was_first_is_led_by_it(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    lead = ask(testweb_env, capsys, FORMER, "what was the first capital of veridia", "veridia")
    assert "Lindhaven" in lead


def test_a_question_opening_on_whats_reads_as_what_is(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    """ "what's the capital of…" asks what is now, and no reason says a page lacks 'what's'."""
    lead, err = ask_pages(
        testweb_env, capsys, FORMER, "what's the capital of veridia", "veridia", only_topic=True
    )
    assert "Port Amsel" in lead and "Lindhaven" not in lead
    assert "confidence · high" in err and "what's" not in err


# A height asked: a count of steps on the same page is no answer to it.
TOWER = (
    "Harrow Bell Tower",
    "The Harrow Bell Tower is a stone campanile on the market square of Orlen.",
    "Visitors climb the 212 steps of the Harrow Bell Tower to its bell chamber.",
)
HEIGHT = "The campanile stands 48 metres high, the tallest building in Orlen."


def test_how_tall_is_answered_by_a_height() -> None:
    from sleuth.pipeline.asks import asks, nearest_span

    wanted = asks("how tall is the harrow bell tower")
    assert nearest_span(wanted, TOWER[2]) is None
    assert nearest_span(wanted, "It was finished in 1907 in Orlen.") is None
    assert nearest_span(wanted, HEIGHT) == "48 metres"
    assert nearest_span(asks("how many steps does the tower have"), TOWER[2]) == "212"


def test_how_tall_leads_with_the_height(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    pages = {"http://monuments.example.org/harrow-bell-tower": (*TOWER, HEIGHT)}
    lead, err = ask_pages(testweb_env, capsys, pages, "how tall is the harrow bell tower", "harrow")
    assert "48 metres" in lead and "gives a number: 48 metres" in err


def test_a_count_of_steps_is_no_height(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    pages = {"http://monuments.example.org/harrow-bell-tower": TOWER}
    _, err = ask_pages(testweb_env, capsys, pages, "how tall is the harrow bell tower", "harrow")
    assert "confidence · high" not in err and "the lead claim gives a number" not in err


NORLAND = (
    "Norland",
    "Norland is a country on the Orlen Sea.",
    "Norland is highly urbanized, and most Norlanders live in towns on the coast.",
)


def test_a_population_is_a_number() -> None:
    from sleuth.pipeline.asks import asks, nearest_span

    for question in ("what is the population of norland", "what's the total area of norland"):
        assert asks(question).kind == "a number"
    assert asks("what is the area code for castelmoor").kind is None
    said = "Norland has a population of 5,210,000 as of the 2020 census."
    assert nearest_span(asks("what is the population of norland"), said) == "5,210,000"


def test_a_population_asked_is_not_high_without_a_number(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    pages = {"http://atlas.example.org/norland": NORLAND}
    _, err = ask_pages(testweb_env, capsys, pages, "what is the population of norland", "norland")
    assert "confidence · high" not in err


# A "who" question names its relation: the page's opening names the singer, a later sentence
# the producer asked for.
SONG: Pages = {
    "http://music.example.org/amber-tide": (
        "Amber Tide",
        '"Amber Tide" is a song by the Norland singer Mara Vell, released in 1971 on Orlen '
        "Records.",
        'Produced by Tomas Reed, "Amber Tide" was recorded in Castelmoor in 1970.',
        "The song reached number three in the Norland charts.",
    ),
}


def test_a_who_question_is_led_by_a_sentence_saying_its_relation() -> None:
    from sleuth.pipeline.asks import asks, relation

    assert relation(asks("who produced amber tide")) == "produc"
    assert relation(asks("who sang amber tide")) is not None
    assert relation(asks("who is mara vell")) is None
    assert relation(asks("when was amber tide produced")) is None


def test_who_produced_is_led_by_the_producer(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    lead, err = ask_pages(testweb_env, capsys, SONG, "who produced amber tide", "amber")
    assert "Tomas Reed" in lead and "Mara Vell" not in lead, lead
    assert "gives a name: Tomas Reed" in err, err


def test_who_sang_is_still_led_by_the_singer(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    lead, _ = ask_pages(testweb_env, capsys, SONG, "who sang amber tide", "amber")
    assert "Mara Vell" in lead, lead


# A study whose name, in title case, says "on Traffic Capacity Across": a title, not a place.
# The show's page says nothing of where it is filmed, so the answer says it was not found.
CROSSING: Pages = {
    "http://roads.example.org/kessel-harbour-crossing-study": (
        "2011 Kessel Harbour crossing study",
        "The 2011 Kessel Harbour crossing study (also known as the Task Force on Traffic "
        "Capacity Across the Kessel Harbour) was a study by the state of Orvane on building a "
        "new crossing.",
        "The crossing would add a third span to the existing harbour bridge.",
    ),
    "http://tv.example.org/the-crossing-series": (
        "The Crossing (TV series)",
        "The Crossing is a science fiction drama series about refugees from the future.",
        "The show was renewed for a second season after strong ratings.",
    ),
}


def test_a_title_in_title_case_gives_no_place(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's deep report on where "the crossing" was filmed led with a bay crossing study
    at `high`: "the lead claim gives a place: on Traffic Capacity Across"."""
    lead, err = ask_pages(
        testweb_env, capsys, CROSSING, "where did they film the show the crossing", "crossing"
    )
    assert lead.startswith("The sources found do not contain the answer")
    assert "Traffic Capacity Across" not in err
    assert "confidence · high" not in err
