"""A question opening on a contracted question word ("what's", "whats", "who’s") is read as the
two words (issue 25): the contraction is no key term — a reason never says a passage lacks
'what's' — and the question asks what *is*, as "what is" does."""

from __future__ import annotations

import pytest

from sleuth.pipeline.asks import asks, says_what_was


@pytest.mark.parametrize(
    ("contracted", "spelled"),
    [
        ("what's the capital of veridia", "what is the capital of veridia"),
        ("whats the largest city in norland", "what is the largest city in norland"),
        ("Who’s the coach of the Orlen Rovers?", "Who is the coach of the Orlen Rovers?"),
        ("when's the next eclipse over orlen", "when is the next eclipse over orlen"),
        ("  Where's Castelmoor", "  Where is Castelmoor"),
    ],
)
def test_a_contracted_question_word_reads_as_the_two_words(contracted: str, spelled: str) -> None:
    said, written = asks(contracted), asks(spelled)
    assert said.question == written.question
    assert said.terms == written.terms
    assert (said.kind, said.yes_no, said.frame) == (written.kind, written.yes_no, written.frame)


def test_the_question_asks_what_is_now() -> None:
    sentence = "Lindhaven was the initial capital of Veridia."
    assert says_what_was(asks("what's the capital of veridia"), sentence)


@pytest.mark.parametrize(
    ("question", "kept"),
    [
        # a title that holds the contraction, past the question word: its words are the subject
        ("who played the mom on what's eating gilbert grape", "what's"),
        ("whatsapp was bought by which company", "whatsapp"),
        ("what is whats on in orlen", "whats"),
    ],
)
def test_only_the_opening_question_word_is_read_so(question: str, kept: str) -> None:
    assert kept in asks(question).terms.values()


@pytest.mark.parametrize(
    ("question", "terms"),
    [
        ("how much is it to join if i'm a student", ["join", "student"]),
        ("if i can’t make it, how far ahead do i need to tell you", ["make", "ahead", "need"]),
        ("who wrote it's a long long way to pasadena", ["wrote", "way", "pasadena"]),
    ],
)
def test_a_contraction_of_two_stop_words_is_no_key_term(question: str, terms: list[str]) -> None:
    """ "i'm" is "i am": no reason says the files lack 'i'm' (it did, over a user's files)."""
    assert list(asks(question).terms.values()) == terms
