"""Confidence is answerability (issue 10): measured from the evidence, with its reasons, and an
answer that says so when the sources do not answer."""

from __future__ import annotations

import pytest

from sleuth.engine.engine import Engine
from sleuth.events import Done, Event
from sleuth.pipeline.answerability import subject_cover
from sleuth.pipeline.asks import asks, shape_spans
from sleuth.pipeline.sentences import about_subject, title_cover
from sleuth.pipeline.write.extractive import ExtractiveWriter
from sleuth.pipeline.write.llm import LLMWriter
from sleuth.ports import Writer
from sleuth.types import ResearchRequest, Result, Source
from tests.fakes import FakeChatModel

from .fakes import FakeFetcher, FakeSearch

TOWER = (
    "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. "
    "It is named after the engineer Gustave Eiffel, whose company designed and built the "
    "tower. Construction of the Eiffel Tower was completed in 1889 as the entrance arch to "
    "the 1889 World's Fair."
)
PARIS = (
    "Paris is the capital and largest city of France. The Eiffel Tower, completed in 1889 for "
    "the World's Fair, is the most visited paid monument in the world."
)
TEA = (
    "A teapot is a vessel used for steeping tea leaves in near-boiling water. Teapots are "
    "usually made of porcelain, glass or cast iron, and are often sold in sets with cups."
)
HITS = [
    ("https://en.example/wiki/Eiffel_Tower", "Eiffel Tower", "completed in 1889"),
    ("https://travel.example/paris", "Paris travel guide", "capital of France"),
    ("https://kitchen.example/teapot", "Teapot", "a vessel for tea"),
]
PAGES = {
    HITS[0][0]: ("Eiffel Tower", TOWER),
    HITS[1][0]: ("Paris travel guide", PARIS),
    HITS[2][0]: ("Teapot", TEA),
}


async def ask(question: str, writer: Writer | None = None) -> Result:
    engine = Engine(FakeSearch({"*": HITS}), FakeFetcher(PAGES), writer or ExtractiveWriter())
    events: list[Event] = [e async for e in engine.run(ResearchRequest(question))]
    assert isinstance(events[-1], Done), events[-1]
    return events[-1].result


async def test_a_correct_well_supported_answer_is_high() -> None:
    result = await ask("When was the Eiffel Tower completed?")
    answer = result.answer or ""
    assert answer.startswith("Construction of the Eiffel Tower was completed in 1889")
    assert result.confidence == "high"
    assert result.confidence_reasons[0] == "the lead claim gives a date: 1889"


async def test_nonsense_is_low_and_says_the_sources_do_not_answer() -> None:
    result = await ask("how many purple elephants fit inside a quantum teapot on tuesdays")
    answer = result.answer or ""
    assert answer.startswith("The sources found do not contain the answer")
    assert result.confidence == "low"
    assert "'purple'" in result.confidence_reasons[0]
    assert "elephants" in answer  # it names what is missing


async def test_no_answer_in_the_sources_is_low_without_padding() -> None:
    result = await ask("Who designed the Sydney Opera House?")
    answer = result.answer or ""
    assert answer.startswith("The sources found do not contain the answer")
    assert "teapot" not in answer.lower() and "porcelain" not in answer
    assert result.confidence == "low" and result.confidence_reasons
    assert result.to_json()["confidence_reasons"] == list(result.confidence_reasons)


async def test_citation_support_alone_is_not_high() -> None:
    # Every sentence is faithful to its page, but no page answers the question.
    model = FakeChatModel()
    model.enqueue("A teapot is a vessel used for steeping tea leaves [3].")
    result = await ask("When did the Sydney Opera House open?", LLMWriter(model))
    assert result.verification.supported == result.verification.checked == 1
    assert result.confidence == "low"
    assert any("does not mention" in r for r in result.confidence_reasons)


async def test_the_models_own_not_found_statement_makes_it_low() -> None:
    model = FakeChatModel()
    text = (
        "The sources do not say who designed the Sydney Opera House. They describe the Eiffel "
        "Tower, which was completed in 1889 [1]."
    )
    model.enqueue(text)
    model.enqueue(text)  # the rewrite after the gap follow-up finds nothing new says it again
    result = await ask("Who designed the Sydney Opera House?", LLMWriter(model))
    assert result.confidence == "low"


async def test_a_missing_line_keeps_an_answer_from_high() -> None:
    model = FakeChatModel()
    text = "Construction of the Eiffel Tower was completed in 1889 [1].\nMISSING: tower opening"
    model.enqueue(text)
    model.enqueue(text)  # the rewrite after the follow-up search names it missing again
    result = await ask("When was the Eiffel Tower completed?", LLMWriter(model))
    assert result.confidence == "medium"
    assert any("missing" in r for r in result.confidence_reasons)


NO_VERDICT = "the question asks yes or no; the lead claim states no verdict the answer gives"


async def test_a_yes_no_question_is_not_high_on_a_sentence_that_states_no_verdict() -> None:
    # No page says 1890: the closest sentence states no verdict, so none is given.
    result = await ask("Was the Eiffel Tower completed in 1890?")
    assert (result.answer or "").startswith("Construction of the Eiffel Tower was completed")
    assert result.confidence == "medium"
    assert NO_VERDICT in result.confidence_reasons


async def test_a_yes_no_question_gets_the_verdict_its_source_states() -> None:
    result = await ask("Was the Eiffel Tower completed in 1889?")
    answer = result.answer or ""
    assert answer.startswith("Yes. Construction of the Eiffel Tower was completed in 1889")
    assert "World's Fair [1]." in answer.split("\n")[0]
    assert result.confidence == "high"


async def test_a_verdict_its_cited_sentence_does_not_state_is_not_high() -> None:
    model = FakeChatModel()
    model.enqueue("No.\n\nConstruction of the Eiffel Tower was completed in 1889 [1].")
    result = await ask("Was the Eiffel Tower completed in 1889?", LLMWriter(model))
    assert result.verification.supported == result.verification.checked == 1
    assert result.confidence == "medium"
    assert NO_VERDICT in result.confidence_reasons


@pytest.mark.parametrize(
    "answer",
    [
        "Yes, construction of the Eiffel Tower was completed in 1889 [1].",
        "Yes.\n\nConstruction of the Eiffel Tower was completed in 1889 [1].",
    ],
)
async def test_a_yes_no_question_answered_yes_from_its_source_can_be_high(answer: str) -> None:
    model = FakeChatModel()
    model.enqueue(answer)
    result = await ask("Was the Eiffel Tower completed in 1889?", LLMWriter(model))
    assert result.verification.supported == result.verification.checked == 1
    assert result.confidence == "high"


async def test_a_question_about_two_named_things_is_not_high_on_one_sentence() -> None:
    # On HotpotQA dev questions such as "In which U.S. state are MedStar Georgetown University
    # Hospital and Providence Hospital?", a sentence about the first was rated high and wrong.
    result = await ask("When were the Eiffel Tower and World's Fair Grounds completed?")
    assert (result.answer or "").startswith("Construction of the Eiffel Tower was completed")
    assert result.confidence == "medium"
    assert any("chains two facts" in r for r in result.confidence_reasons)


@pytest.mark.parametrize(
    ("question", "chained"),
    [
        ("In which U.S. state are MedStar Georgetown University Hospital and Providence Hospital?",
         True),
        ("Who wrote Pride and Prejudice?", False),  # one title, not two things
        ("Who wrote Harry Potter and the Philosopher's Stone?", False),
        ("When did Lewis and Clark reach the Pacific?", False),
        ("who sang rip it up and start again", False),
    ],
)  # fmt: skip
def test_two_named_things_chain_a_question_and_titles_with_and_do_not(
    question: str, chained: bool
) -> None:
    from sleuth.pipeline.asks import asks

    assert asks(question).chained is chained


async def test_a_missing_subject_term_is_never_beside_high() -> None:
    """ "Zephyr" names the question's subject and no cited passage says it: the reason names it
    and the grade cannot be high, however well the rest of the sentence fits."""
    model = FakeChatModel()
    model.enqueue("Construction of the Eiffel Tower was completed in 1889 [1].")
    result = await ask("When was the Zephyr Eiffel Tower completed?", LLMWriter(model))
    assert "the cited passage does not mention 'zephyr'" in result.confidence_reasons
    assert result.confidence != "high"


async def test_a_missing_frame_word_is_not_named_and_does_not_cap_the_grade() -> None:
    """ "finished" says how the question relates to its subject; the passage's "completed"
    answers it. Only subject terms are named as missing."""
    result = await ask("When was the Eiffel Tower finished?")
    assert (result.answer or "").startswith("Construction of the Eiffel Tower was completed in")
    assert not any("does not mention" in r for r in result.confidence_reasons)
    assert result.confidence == "high"


def test_the_reason_names_the_answer_next_to_the_question_subject_not_the_first_name() -> None:
    """ "who wrote the novel moby dick", led by a sentence about a film that names its
    screenwriter first: the reason said "gives a name: James Poe" (stop 32)."""
    from sleuth.pipeline.asks import asks, nearest_span

    lead = (
        "The screenplay by James Poe is based on the 1963 book by Mark Rascovich, which "
        "borrowed from the plot of Herman Melville's Moby-Dick."
    )
    assert nearest_span(asks("who wrote the novel moby dick"), lead) == "Herman Melville"
    alone = "The film was directed by James B. Harris, best known as Stanley Kubrick's producer."
    assert nearest_span(asks("who directed the bedford incident"), alone) == "James B. Harris"


def test_the_reason_names_the_answer_in_the_statement_that_says_the_subject() -> None:
    """ "whats the largest city in canada" was led by a sentence joining two statements, and the
    reason named the nearer name of the other one: "gives a proper name: Ottawa"."""
    from sleuth.pipeline.asks import asks, nearest_span

    lead = "Its capital is Ottawa, and its largest metropolitan areas are Toronto and Montreal."
    assert nearest_span(asks("what is the largest city in canada"), lead) == "Toronto"
    assert nearest_span(asks("what is the capital of canada"), lead) == "Ottawa"


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("when was the harrow bell tower built", "a date"),
        ("who founded the company and when", "a date"),  # asks two things, a date among them
        ("the ship was first launched when?", "a date"),
        ("who was the leader of the country when the wall was built", "a name"),
        ("who sings will you still love me when i'm not young", "a name"),
        ("where was the ship when it exploded", "a place"),
        ("how many people died when the ship sank", "a number"),
        ("the probability of a type I error when retaining the null is", None),
        ("Does the drug alter heart function when used during surgery?", None),
    ],
)
def test_when_asks_for_a_date_only_where_it_asks(question: str, kind: str | None) -> None:
    """ "when" as a conjunction ("who was the leader when the wall was built") does not make a
    question ask for a date: the reasons said "no kept passage gives a date" to a "who"."""
    assert asks(question).kind == kind


@pytest.mark.parametrize(
    ("question", "sentence"),
    [
        ("when does april fools day end at noon", "In Poland it ends at noon of April 1st."),
        ("how long does the ferry crossing last", "The crossing takes about forty minutes."),
        ("how long is the night at the pole", "The night lasts several months."),
    ],
)
def test_dates_and_durations_in_words_hold_the_asked_for_shape(
    question: str, sentence: str
) -> None:
    wanted = asks(question)
    assert wanted.shape is not None and shape_spans(wanted.shape, sentence, question)


SEASON = (
    "Harbour Lights is a medical drama set on the harbour of Varnby. The fourteenth season of "
    "the United States drama Harbour Lights premiered on September 28, 2017, on the ABC network. "
    "It has 24 episodes."
)
OTHER_FILM = (
    "Saltmarsh is a 1975 thriller film about a fishing town. The film was directed by Marco "
    "Vell, an Italian director, and scored by Ana Ruiz."
)


async def ask_pages(
    question: str, pages: dict[str, tuple[str, str]], writer: Writer | None = None
) -> Result:
    hits = [(url, title, text[:60]) for url, (title, text) in pages.items()]
    engine = Engine(FakeSearch({"*": hits}), FakeFetcher(pages), writer or ExtractiveWriter())
    events: list[Event] = [e async for e in engine.run(ResearchRequest(question))]
    assert isinstance(events[-1], Done), events[-1]
    return events[-1].result


async def test_a_term_the_passage_says_in_another_form_is_not_missing() -> None:
    """ "14th" and "us" in the question, "fourteenth" and "the United States" on the page: the
    passage says every subject term, so nothing is named missing and the answer can be high."""
    pages = {"https://tv.example/harbour-lights-14": ("Harbour Lights (season 14)", SEASON)}
    result = await ask_pages("when did the 14th season of the us drama harbour lights air", pages)
    assert "September 28, 2017" in (result.answer or "").split("\n")[0]
    assert not any("does not mention" in r for r in result.confidence_reasons)
    assert result.confidence == "high"


async def test_a_passage_about_another_film_still_misses_the_film() -> None:
    """ "The nationality of the director of the film Jaws", answered "Italian" from a page about
    another film's director: "directed" and "director" are one family, but nothing on the page
    says the film's name, so the reason names it and the answer is not high."""
    model = FakeChatModel()
    model.enqueue("The film was directed by Marco Vell, an Italian director [1].")
    pages = {"https://films.example/saltmarsh": ("Saltmarsh (film)", OTHER_FILM)}
    question = "what is the nationality of the director of the film tidewater"
    result = await ask_pages(question, pages, LLMWriter(model))
    assert "the cited passage does not mention 'nationality' or 'tidewater'" in (
        result.confidence_reasons
    )
    assert result.confidence != "high"


@pytest.mark.parametrize(
    ("sentence", "places"),
    [
        ("The series is filmed in British Columbia, Canada.", ["in British Columbia"]),
        ("They came from Germany in 1990.", ["from Germany"]),
        # a month or a day is not a place
        ("The wall was opened in November 1989, on Thursday.", []),
        # what comes from a name said with a possessive is that person's work
        ("Criss Cross is a 1949 film noir, from Don Tracy's novel of the same name.", []),
        # an event is not a place
        ("It set the stage for wider conflicts in the Napoleonic Wars.", []),
        ("She won gold at the Olympics and in the World Series of Poker.", []),
        # a title in title case is not a place; a place name with "The" in it is
        (
            "The study (also known as the Task Force on Traffic Capacity Across the Bay) "
            "was made in 2005.",
            [],
        ),
        ("The court sits in The Hague.", ["in The Hague"]),
        (
            "It was shot at Pinewood Studios and on Vancouver Island.",
            ["at Pinewood Studios", "on Vancouver Island"],
        ),
        # a place ends at the end of its line
        ("It was shot in New York\nThe Film", ["in New York"]),
    ],
)
def test_a_place_is_not_a_month_a_day_an_event_a_title_or_a_work_from_someone(
    sentence: str, places: list[str]
) -> None:
    """ "the lead claim gives a place: from Don" graded a film noir `high` for where a TV show
    was filmed; "on Traffic Capacity Across" a study's name, and "in the Napoleonic Wars" a
    sentence on where Napoleon was born (issue 25)."""
    wanted = asks("where did they film the show the crossing")
    assert wanted.shape is not None
    assert shape_spans(wanted.shape, sentence, wanted.question) == places


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("what is the capital of veridia", "a proper name"),
        ("what is the largest city in norland", "a proper name"),
        ("which river runs through orlen", "a proper name"),
        ("what language do they speak in veridia", "a proper name"),
        ("what is the largest organ in the body", None),  # the skin: not a name
        ("what is the meaning of the word capital", None),
    ],
)
def test_asking_which_place_or_body_asks_for_a_name(question: str, kind: str | None) -> None:
    assert asks(question).kind == kind


def test_a_name_the_question_does_not_say_answers_which_city() -> None:
    wanted = asks("what is the largest city in norland")
    assert wanted.shape is not None
    spans = [
        shape_spans(wanted.shape, s, wanted.question)
        for s in (
            "Castelmoor is the largest city in Norland.",
            "Norland is highly urbanized, with most people in large cities.",
            "There are four cities in Norland.",
        )
    ]
    assert spans == [["Castelmoor"], [], []]


def test_the_run_decision_takes_a_page_titled_by_the_question_as_about_it() -> None:
    """The reader's run decision weighs how far a kept page is about the subject: a page the
    question names whole counts fully, whatever share of the key terms its title names."""
    wanted = asks("what is the largest city in norland")

    def about(*titles: str) -> float:
        pages = [Source(i + 1, f"http://x.example/{i}", t, 1.0, ()) for i, t in enumerate(titles)]
        return about_subject(pages, wanted, title_cover(pages, wanted))

    assert about("Norland", "Railways of Orlen") == 1.0
    assert about("Cities of Norland") == 1.0  # every word of it is the question's
    assert about("Towns and cities of Norland") == pytest.approx(2 / 3)
    assert about("Railways of Orlen") == 0.0
    assert about() == 0.0


def test_a_page_titled_by_the_question_is_about_its_subject() -> None:
    """ "Canada" is the page about the largest city in Canada, though its title names one of
    the question's three key terms; a page on another thing that shares a word is not."""
    wanted = asks("what is the largest city in norland")

    def cover(*titles: str) -> float:
        pages = [Source(i + 1, f"http://x.example/{i}", t, 1.0, ()) for i, t in enumerate(titles)]
        return subject_cover(wanted, pages)

    assert cover("Norland") == 1.0
    assert cover("Norland (country)") == 1.0
    assert cover("Norland Railways") < 0.5
    assert cover("Largest cities of the world") < 1.0


VERIDIA = "https://atlas.example/veridia-capitals"
CAPITALS = (
    "Lindhaven was the initial capital of Veridia following the 1890 union of the isles. In "
    "1925, the seat of government was moved to the newly built city of Port Amsel, which "
    "continues to serve as the national capital of Veridia."
)
WAS_BEFORE = "the lead claim says what was before; the question asks what is now"


@pytest.mark.parametrize(
    ("lead", "high"),
    [
        ("Lindhaven was the initial capital of Veridia [1].", False),
        ("Port Amsel continues to serve as the national capital of Veridia [1].", True),
    ],
)
async def test_a_lead_saying_what_was_is_not_high_for_a_question_asking_what_is(
    lead: str, high: bool
) -> None:
    model = FakeChatModel()
    model.enqueue(lead)
    engine = Engine(
        FakeSearch({"*": [(VERIDIA, "List of Veridian capital cities", "capital")]}),
        FakeFetcher({VERIDIA: ("List of Veridian capital cities", CAPITALS)}),
        LLMWriter(model),
    )
    events = [e async for e in engine.run(ResearchRequest("What is the capital of Veridia?"))]
    assert isinstance(events[-1], Done), events[-1]
    result = events[-1].result
    assert (result.confidence == "high") is high, result.confidence_reasons
    assert (WAS_BEFORE in result.confidence_reasons) is not high


AUSTRALIAN_CAPITALS = (
    "There are eight capital cities in Australia, each of which functions as the seat of "
    "government for the state or territory in which it is located. Canberra is the capital "
    "of the country as a whole."
)
ITALIAN_MODEL = (
    "Giulia Ferro is a fashion model born in Italy. She moved from Italy to London in 2008 "
    "and has worked for fashion houses in Italy and France since."
)


async def test_an_ly_word_the_pages_write_as_a_name_is_the_subject_not_an_adverb() -> None:
    """ "what is the capital of italy" was graded `high` on a page about Australia's capitals:
    "italy" ends in "-ly", so it was read as an adverb, a frame word, and never missing. The
    kept pages write it "Italy", so it is the question's subject, and the page lacks it."""
    hits = [
        ("https://en.example/wiki/Australian_capitals", "List of Australian capital cities", ""),
        ("https://en.example/wiki/Giulia_Ferro", "Giulia Ferro", ""),
    ]
    pages = {
        hits[0][0]: ("List of Australian capital cities", AUSTRALIAN_CAPITALS),
        hits[1][0]: ("Giulia Ferro", ITALIAN_MODEL),
    }
    engine = Engine(FakeSearch({"*": hits}), FakeFetcher(pages), ExtractiveWriter())
    events = [e async for e in engine.run(ResearchRequest("what is the capital of italy"))]
    result = events[-1].result
    assert isinstance(events[-1], Done)
    assert result.confidence != "high", (result.answer, result.confidence_reasons)
    assert any("'italy'" in r for r in result.confidence_reasons)


def test_an_ly_word_is_an_adverb_unless_written_as_a_name() -> None:
    assert "quick" in asks("how quickly does light travel").frame
    assert "italy" in asks("what is the capital of Italy").subject.values()
    assert "italy" not in asks("what is the capital of italy").subject.values()  # pages decide
