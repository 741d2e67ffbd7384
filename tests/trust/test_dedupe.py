from __future__ import annotations

import random

import pytest

from sleuth.pipeline.dedupe import (
    EXACT_LIMIT,
    NearDuplicates,
    fingerprint,
    similarity,
)
from sleuth.urls import normalize_url

WORDS = [f"w{i}" for i in range(3000)]


def near_duplicate_of(text: str, kept: list[str], threshold: float = 0.9) -> int | None:
    """Index of the first kept text that `text` nearly repeats (through the engine's index)."""
    index = NearDuplicates(threshold)
    for k in kept:
        index.keep(k)
    return index.match(text)


def _article(seed: int, n: int = 600) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(n))


def test_syndicated_copy_with_new_header_and_footer_is_a_near_duplicate() -> None:
    original = _article(1)
    copy = "Syndicated from the wire. Subscribe now! " + original.upper() + " Share this story."
    assert near_duplicate_of(copy, [_article(2), original]) == 1


def test_different_articles_on_one_topic_are_kept() -> None:
    shared = _article(3, 200)
    a = shared + " " + _article(4, 400)
    b = shared + " " + _article(5, 400)
    assert near_duplicate_of(b, [a]) is None


def test_threshold_is_inclusive_and_tunable() -> None:
    base = _article(6, 1000)
    edited = base + " " + _article(7, 150)  # ~0.87 similar
    assert near_duplicate_of(edited, [base]) is None
    assert near_duplicate_of(edited, [base], threshold=0.8) == 0
    assert near_duplicate_of(base, [base], threshold=1.0) == 0


def test_short_and_empty_texts() -> None:
    assert near_duplicate_of("", [""]) is None
    assert near_duplicate_of("two words", ["Two, words!"]) == 0
    assert near_duplicate_of("two words", ["other words"]) is None


def test_index_keeps_anchors_and_reports_the_kept_index() -> None:
    index = NearDuplicates()
    assert index.add_unless_duplicate(_article(8)) is None
    index.keep(_article(9))
    assert index.add_unless_duplicate(_article(9)) == 1
    assert index.add_unless_duplicate(_article(10)) is None
    assert len(index) == 3


def test_long_texts_are_sampled_and_still_compared_correctly() -> None:
    big = _article(11, EXACT_LIMIT * 2)
    fp = fingerprint(big)
    assert fp.sampled
    assert similarity(fp, fingerprint(big + " tail words here")) > 0.99
    assert similarity(fp, fingerprint(_article(12, EXACT_LIMIT * 2))) < 0.05
    # a sampled text against an exact one: the exact one is sampled the same way
    assert similarity(fp, fingerprint(_article(11, 5000))) == pytest.approx(0.125, abs=0.05)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("https://WWW.Example.com/a/", "https://example.com/a"),
        ("https://example.com:443/a#frag", "https://example.com/a"),
        ("https://example.com/a?b=2&a=1&utm_source=x", "https://example.com/a?a=1&b=2"),
        ("https://example.com/", "https://example.com"),
        ("http://example.com:8080/x?fbclid=1", "http://example.com:8080/x"),
    ],
)
def test_normalize_url_equates(a: str, b: str) -> None:
    assert normalize_url(a) == normalize_url(b)


def test_normalize_url_keeps_real_differences() -> None:
    assert normalize_url("https://example.com/a?id=1") != normalize_url(
        "https://example.com/a?id=2"
    )
    assert normalize_url("https://example.com/A") != normalize_url("https://example.com/a")
