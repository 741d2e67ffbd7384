"""What the extractive writer may quote is a whole sentence (issue 25): the tail of one whose
start a page lost ("lack a cell nucleus and…" under the title "Red blood cell") is read as a
neighbour's context but never quoted, so it never leads an answer."""

from __future__ import annotations

from sleuth.pipeline.sentences import sentences, stems
from sleuth.pipeline.write.extractive import compose, render
from sleuth.types import Passage, Source


def page(text: str, title: str = "Glass frogs", number: int = 1) -> Source:
    return Source(number, f"http://frogs.example/{number}", title, 1.0,
                  (Passage(text, 1.0, 0),), text=text)  # fmt: skip


def quoted(text: str) -> list[str]:
    return [c.text for c in sentences([page(text)])]


def test_a_sentence_whose_start_the_page_lost_is_not_quoted() -> None:
    said = quoted(
        "Glass frogs\n"
        "lack pigment on their bellies, so their hearts and livers show through the skin.\n"
        "Glass frogs live in the cloud forests of Central and South America."
    )
    assert said == ["Glass frogs live in the cloud forests of Central and South America."]


def test_a_tail_after_a_closing_bracket_is_not_quoted() -> None:
    said = quoted(
        "or The glass frog of Ecuador) is a frog of the family Centrolenidae in the Andes.\n"
        "The glass frog of Ecuador lays its eggs on leaves above streams."
    )
    assert said == ["The glass frog of Ecuador lays its eggs on leaves above streams."]


def test_a_word_with_a_capital_inside_begins_a_sentence() -> None:
    said = quoted(
        "iPhone owners photographed the glass frogs of the reserve at night.\n"
        "eBay listings for glass frog prints rose sharply after the film came out."
    )
    assert len(said) == 2


def test_a_list_item_may_begin_in_lower_case() -> None:
    said = quoted(
        "What the reserve asks of visitors:\n"
        "- keep to the marked paths near the streams where the frogs breed.\n"
        "- switch off torches when a guide points out a glass frog."
    )
    assert said == [
        "keep to the marked paths near the streams where the frogs breed.",
        "switch off torches when a guide points out a glass frog.",
    ]


def test_the_lead_is_a_whole_sentence_though_a_tail_shares_more_words() -> None:
    lost = page(
        "Glass frog\n"
        "frog species that live in the cloud forest, where glass frogs breed along streams.\n",
        "Glass frog",
    )
    whole = page(
        "Glass frogs breed in the rainy season, when the males call from leaves over streams.",
        "Glass frog breeding",
        number=2,
    )
    lead = render(compose([lost, whole], "where do glass frogs breed", 5)).split("\n")[0]
    assert lead.startswith("Glass frogs breed in the rainy season")


HANDBOOK = (
    "# Engineering handbook\n\n"
    "## On-call\n\n"
    "Engineers on the primary rotation receive a stipend of $450 per week.\n\n"
    "## Expenses\n\n"
    "Meals during travel are reimbursed up to $75 per day.\n"
)


def test_a_files_headings_title_its_sections() -> None:
    """A user's file is titled by its kind ("Engineering handbook"); its headings say what
    each section is about. A sentence's title is its page's and its heading's, which the
    word-overlap score and the reader weigh as a title naming the question's subject."""
    from sleuth.pipeline.asks import asks
    from sleuth.pipeline.sentences import score, title_cover

    source = page(HANDBOOK, "Engineering handbook")
    on_call, meals = sentences([source])
    assert (on_call.heading, meals.heading) == ("On-call", "Expenses")
    wanted = asks("how much is the on-call pay")
    by_heading, other = score([on_call, meals], wanted)
    assert by_heading.title > other.title == 0.0
    assert title_cover([source], wanted)[1] == by_heading.title  # the page: its best section
    assert title_cover([page(HANDBOOK.replace("## ", ""), "Engineering handbook")], wanted) == {
        1: 0.0
    }


def test_a_passage_read_from_inside_a_section_keeps_its_heading() -> None:
    start = HANDBOOK.index("Meals")
    source = Source(1, "file:///handbook.md", "Engineering handbook", 1.0,
                    (Passage(HANDBOOK[start:], 1.0, start),), text=HANDBOOK)  # fmt: skip
    (meals,) = sentences([source])
    assert meals.heading == "Expenses" and stems("Expenses") <= meals.title


PRICES = (
    "## Vaccinations\n\n"
    "- Annual booster, dogs: £52\n"
    "- Annual booster, cats: £49\n"
    "- Home\n\n"
    "Every vaccination appointment includes a full health check with a vet.\n"
)


def test_a_list_item_of_a_users_file_is_a_statement() -> None:
    """A price list or a rota says its facts in list items, not sentences: in the user's own
    files an item of two words or more may be quoted (and gets its period when cited). On a
    web page list items are mostly menus, and only whole sentences are quoted."""
    own = Source(1, "file:///vets/prices.md", "prices", 1.0, (Passage(PRICES, 1.0, 0),),
                 text=PRICES)  # fmt: skip
    items = [c.text for c in sentences([own])]
    assert items[:2] == ["Annual booster, dogs: £52", "Annual booster, cats: £49"]
    assert "Home" not in items  # one word: a menu entry, not a statement
    assert sentences([own])[1].heading == "Vaccinations"
    assert quoted(PRICES) == [
        "Every vaccination appointment includes a full health check with a vet."
    ]
    composition = compose([own], "how much is the annual booster for cats", 3)
    assert composition.answered and "£49 [1]." in render(composition).split("\n")[0]
