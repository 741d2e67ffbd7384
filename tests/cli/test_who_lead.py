"""A "who" question is answered by a sentence that names someone (issue 25), on the loopback
test web. The run's decision whether the sources answer reads the likeliest sentence whatever
its shape, so for "who" the lead must name a person, an organisation or a place the question
does not (`asks.names_someone`): a page about the asked-for company that never says who
founded it is "not found", not answered with a sentence about its products, while a founder
named by one word, which the two-word name pattern misses, still answers."""

from __future__ import annotations

import pytest

from tests.cli.helpers import ask_pages
from tests.testweb.server import TestWeb

NOT_FOUND = "The sources found do not contain the answer"


def ask(web: TestWeb, capsys: pytest.CaptureFixture[str], url: str, *paragraphs: str) -> str:
    return ask_pages(web, capsys, {url: paragraphs}, "who founded quillmark", "quillmark")[0]


def test_a_founder_named_by_one_word_answers(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    lead = ask(
        testweb_env,
        capsys,
        "http://pens.example.org/quillmark",
        "Quillmark",
        "Quillmark is a maker of fountain pens with a workshop on the river quay.",
        "Quillmark was founded in 1921 by Varnholt, a watchmaker who had lost his sight.",
        "Its pens are sold in forty countries.",
    )
    assert not lead.startswith(NOT_FOUND)
    assert "Varnholt" in lead


def test_a_page_that_names_no_founder_is_not_found(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    lead = ask(
        testweb_env,
        capsys,
        "http://pens.example.org/quillmark-inks",
        "Quillmark inks",
        "Quillmark inks are pigment based and dry within ten seconds on most papers.",
        "Quillmark refills every cartridge it sells for free when it is returned empty.",
        "Its inks come in twelve colours.",
    )
    assert lead.startswith(NOT_FOUND)
