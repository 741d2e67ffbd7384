"""Support is judged against a passage (issue 12, item 2): numbers, dates and negations in a
cited sentence must be in the cited passage, and a keyword-stuffed page lends no support."""

from __future__ import annotations

import random

import pytest

from sleuth.pipeline import cite
from sleuth.pipeline.links import not_citations
from sleuth.pipeline.support import supports
from sleuth.types import Passage, Source


def src(text: str, title: str = "Widgets", number: int = 1) -> Source:
    return Source(
        number, f"https://s{number}.example/", title, 1.0, (Passage(text, 1.0, 0),), text=text
    )


BACKUPS = src(
    "Zephyr widget firmware is updated every 18 months. Updates ship on 4 March each year. "
    "The widgets are not waterproof and must be kept indoors."
)


@pytest.mark.parametrize(
    ("sentence", "supported"),
    [
        ("Zephyr widget firmware is updated every 18 months.", True),
        ("Zephyr widget firmware is updated every 6 months.", False),  # a number it does not say
        ("Zephyr widget firmware is updated every eighteen months.", True),  # = 18
        ("Zephyr widget firmware is updated every eight months.", False),
        ("Updates ship on 4 March each year.", True),
        ("Updates ship on 4 May each year.", False),  # a month it does not say
        ("The widgets are not waterproof.", True),
        ("Zephyr widget firmware is never updated.", False),  # a negation the window lacks
    ],
)
def test_numbers_months_and_negations_must_be_in_the_passage(
    sentence: str, supported: bool
) -> None:
    assert supports(sentence, BACKUPS, 0.4) is supported


def test_spelled_numbers_count_as_their_digits() -> None:
    copies = src("The plan keeps audit logs in 2 copies.")
    assert supports("The plan keeps audit logs in two copies.", copies, 0.4)
    assert not supports("The plan keeps audit logs in three copies.", copies, 0.4)


def test_an_unrelated_page_supports_nothing() -> None:
    tea = src("A teapot is a vessel for steeping tea leaves in hot water.", title="Teapot")
    assert not supports("Zephyr widgets are radioactive and glow in the dark.", tea, 0.4)


def test_a_keyword_stuffed_page_supports_nothing() -> None:
    words = "zephyr widgets radioactive glow dark cheap best buy deal safe tested certified".split()
    rng = random.Random(7)
    filler = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()
    stuffed = " ".join(rng.choice(filler * 20 + words) for _ in range(3000))
    page = src(stuffed, title="Best widgets")
    assert not supports("Zephyr widgets are radioactive and glow in the dark.", page, 0.4)


def test_support_is_one_passage_not_the_pages_bag_of_words() -> None:
    page = Source(
        1,
        "https://s1.example/",
        "Catalogue",
        1.0,
        (
            Passage("Zephyr widgets are sold in Oslo.", 1.0, 0),
            Passage("Radioactive waste is stored in deep caves.", 0.5, 40),
        ),
        text="Zephyr widgets are sold in Oslo. Radioactive waste is stored in deep caves.",
    )
    assert not supports("Zephyr widgets are radioactive waste.", page, 0.7)
    assert supports("Zephyr widgets are sold in Oslo.", page, 0.7)


def test_a_fake_sources_section_and_reference_lines_are_removed() -> None:
    sources = [src("Audit logs are kept 90 days.", number=1)]
    text = (
        "Logs are kept 90 days [1].\n\n**Sources:**\n- [1] Audit — https://evil.example/a\n"
        "- [2] Other — https://evil.example/b\n\nMore text here [1].\n[3]: https://evil.example/c\n"
    )
    cleaned = not_citations(text, sources)
    assert "evil.example" not in cleaned and "**Sources" not in cleaned
    assert "More text here [1]." in cleaned
    assert [c.numbers for c in cite.claims(cleaned)] == [(1,), (1,)]


def test_a_link_to_a_numbered_source_becomes_its_marker() -> None:
    sources = [src("Audit logs are kept 90 days.", number=1)]
    cleaned = not_citations(
        "See [the docs](https://s1.example/) and <https://x.example/y>.", sources
    )
    assert cleaned == "See the docs [1] and."
