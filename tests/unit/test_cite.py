import pytest

from sleuth.pipeline import cite
from sleuth.types import Passage, Source, Verification


def src(n: int, text: str) -> Source:
    return Source(
        n, f"https://s{n}.example/", f"Source {n}", 1.0, (Passage(text, 1.0, 0),), text=text
    )


SOURCES = [
    src(1, "Audit log entries are retained for 90 days by default in Example Cloud."),
    src(2, "Enterprise plans can extend audit log retention to 365 days."),
    src(3, "Exports are available as JSON or CSV."),
]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Kept 90 days [7].", "Kept 90 days."),
        ("Kept [1-3].", "Kept [1][2][3]."),
        ("Kept [2, 2].", "Kept [2]."),
        ("Kept [1][1] [2].", "Kept [1][2]."),
        ("Kept [1, 3].", "Kept [1][3]."),
        ("Kept [ 3 ; 1 ].", "Kept [3][1]."),
        ("Kept [0] and [4-9].", "Kept and."),
        ("See [the docs](https://x.example) [1].", "See [the docs](https://x.example) [1]."),
        ("No citations at all.", "No citations at all."),
        ("Huge range [1-100000].", "Huge range."),
    ],
)
def test_normalize(raw: str, expected: str) -> None:
    assert cite.normalize(raw, [1, 2, 3]) == expected


def test_citations_are_exactly_the_cited_sources_in_number_order() -> None:
    answer = "Enterprise extends retention to 365 days [2]. Entries are kept 90 days [1]."
    cites = cite.citations(answer, SOURCES)
    assert [c.number for c in cites] == [1, 2]
    assert cites[0].quote.startswith("Audit log entries")
    assert all(len(c.quote) <= 300 for c in cites)


def test_quote_is_at_most_300_chars_and_starts_near_the_claim() -> None:
    long = (
        "Filler sentence about nothing in particular here. " * 10
        + "The retention period is 90 days for audit entries. "
        + "More filler text. " * 20
    )
    cites = cite.citations("The retention period is 90 days [1].", [src(1, long)])
    assert len(cites[0].quote) <= 300
    assert "90 days" in cites[0].quote


def test_verify_supported_and_unsupported() -> None:
    answer = (
        "Audit log entries are retained for 90 days [1]. "
        "The moon is made of green cheese and costs 5 dollars [3]."
    )
    v = cite.verify(answer, SOURCES, 0.4)
    assert (v.checked, v.supported) == (2, 1)
    assert v.unsupported[0].numbers == (3,)
    assert "green cheese" in v.unsupported[0].sentence


def test_every_cite_of_a_multi_cite_sentence_must_pass() -> None:
    answer = "Audit log entries are retained for 90 days by default [1][3]."
    v = cite.verify(answer, SOURCES, 0.4)
    assert v.supported == 0 and v.unsupported[0].numbers == (1, 3)


def test_threshold_is_respected() -> None:
    answer = "Audit entries are retained for 90 days, and exports cost extra [1]."
    assert cite.verify(answer, SOURCES, 0.4).supported == 1
    assert cite.verify(answer, SOURCES, 0.9).supported == 0


def test_footer_only_when_something_failed() -> None:
    assert cite.health_footer(Verification(3, 3)) == ""
    bad = cite.verify("Pigs fly over Paris daily [2].", SOURCES, 0.4)
    footer = cite.health_footer(bad)
    assert "## Citation health" in footer and "Pigs fly" in footer
