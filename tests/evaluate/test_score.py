from __future__ import annotations

from dataclasses import replace

import pytest

from sleuth.evaluate.questions import Question
from sleuth.evaluate.score import (
    Observation,
    Rate,
    contains_answer,
    normalize,
    percentile,
    score,
    summarize,
    url_key,
    verdict,
    wilson,
)
from sleuth.types import (
    ModelUsage,
    Passage,
    Result,
    Source,
    SourceTrust,
    Usage,
    Verification,
)


def make_result(
    answer: str,
    sources: list[tuple[str, str]],
    confidence: str = "high",
    checked: int = 2,
    supported: int = 1,
) -> Result:
    srcs = tuple(
        Source(i, url, f"t{i}", 1.0, (Passage(text, 1.0, 0),))
        for i, (url, text) in enumerate(sources, 1)
    )
    return Result(
        query="q",
        answer=answer,
        citations=(),
        sources=srcs,
        queries=("q",),
        confidence=confidence,  # type: ignore[arg-type]
        verification=Verification(checked, supported),
        source_trust=SourceTrust("mixed", {}),
        usage=Usage(searches=2, pages_read=7, by_model={"m": ModelUsage(calls=3, cost_usd=0.5)}),
    )


def test_normalized_contains_match_over_aliases() -> None:
    assert normalize("The  Röntgen, Wilhelm!") == "rontgen wilhelm"
    assert contains_answer("It went to Wilhelm Conrad Röntgen [1].", ["wilhelm conrad rontgen"])
    assert contains_answer("On May 18, 2018.", ["nope", "May 18 2018"])
    assert not contains_answer("In 19012 it rained", ["1901"])  # whole words only
    assert not contains_answer("anything", ["the"])  # an alias that normalizes to nothing


def test_verdict_of_an_answer() -> None:
    assert verdict("Yes [1]. The trial showed benefit.") == "yes"
    assert verdict("No: see [2].") == "no"
    assert verdict("The effect may depend on dose [1].") == "maybe"
    assert verdict("Treatment did not reduce mortality [1].") == "no"
    assert verdict("Treatment reduced mortality by half [1].") == "yes"


def test_wilson_interval_matches_the_formula() -> None:
    low, high = wilson(8, 10) or (0, 0)
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    zero = wilson(0, 10)
    assert zero is not None and zero[0] == 0.0 and zero[1] == pytest.approx(0.2775, abs=1e-4)
    assert wilson(0, 0) is None
    assert Rate(3, 4).value == 0.75 and Rate(0, 0).value is None


def test_percentiles_interpolate() -> None:
    assert percentile([10, 20, 30, 40], 50) == 25
    assert percentile([5], 99) == 5
    assert percentile([], 50) is None


def test_scores_a_hand_made_result() -> None:
    q = Question(
        "q1",
        "who?",
        ("Ada Lovelace",),
        "ds",
        gold_urls=("https://www.example.org/ada/", "http://example.org/babbage"),
    )
    result = make_result(
        "It was Ada Lovelace [1].",
        [
            ("http://example.org/ada", "Ada Lovelace wrote the first program."),
            ("http://other.example/x", "unrelated"),
        ],
    )
    obs = Observation(
        result,
        420,
        candidates=("http://example.org/ada", "http://example.org/babbage"),
        read=("http://example.org/ada",),
    )
    row = score(q, obs)
    assert (row.gold_candidates, row.gold_read, row.gold_kept, row.gold_total) == (2, 1, 1, 2)
    assert row.gold_any is True and row.gold_all is False
    assert row.answer_in_passages and row.answer_in_text
    assert (row.cites_checked, row.cites_supported, row.confidence) == (2, 1, "high")
    assert (row.pages_read, row.searches, row.llm_calls, row.cost_usd) == (7, 2, 3, 0.5)


def test_yes_no_questions_are_scored_by_verdict_and_failures_count_as_misses() -> None:
    q = Question("p1", "does it work?", ("no",), "pubmed", kind="yes/no/maybe")
    row = score(
        q, Observation(make_result("It did not work [1].", [("http://a.example/", "x")]), 10)
    )
    assert row.verdict == "no" and row.answer_in_text and row.answer_in_passages is None
    failed = score(q, Observation(None, 5, error="NO_SOURCES: none"))
    assert not failed.ok and not failed.answer_in_text and failed.error == "NO_SOURCES: none"


def test_summary_rates_calibration_and_speed() -> None:
    q = Question("q", "who?", ("Ada",), "ds", gold_urls=("http://e.example/a",))
    hit = score(q, Observation(make_result("Ada [1].", [("http://e.example/a", "Ada")]), 100))
    miss = score(
        q,
        Observation(
            make_result("Bob [1].", [("http://e.example/b", "Bob")], confidence="low"), 300
        ),
    )
    failed = score(q, Observation(None, 50, error="x"))
    s = summarize([hit, miss, failed])
    assert (s.gold_any.hits, s.gold_any.n) == (1, 3)
    assert (s.answer_in_text.hits, s.completed.hits) == (1, 2)
    assert (s.calibration["high"].hits, s.calibration["high"].n) == (1, 1)
    assert (s.calibration["low"].hits, s.calibration["low"].n) == (0, 1)
    assert (s.cites_supported.hits, s.cites_supported.n) == (2, 4)
    assert s.latency_ms["p50"] == 100
    assert s.pages_per_s == pytest.approx(14 / 0.45)


def test_url_key_ignores_scheme_www_and_trailing_slash() -> None:
    assert url_key("https://WWW.Example.org/a%20b/") == url_key("http://example.org/a b")


def test_rows_carry_plan_hops_rounds_and_cut_reads() -> None:
    q = Question("q1", "who?", ("Ada",), "ds")
    result = make_result("Ada [1].", [("http://e.example/a", "Ada")])
    usage = replace(result.usage, plan="multi_hop", hops=1, rounds=3, read_ms=812)
    obs = Observation(replace(result, usage=usage), 900, cut=("http://slow.example/",))
    row = score(q, obs)
    assert (row.plan, row.hops, row.rounds, row.read_ms, row.reads_cut) == (
        "multi_hop",
        1,
        3,
        812,
        1,
    )
    failed = score(q, Observation(None, 5, error="x"))
    assert (failed.plan, failed.hops, failed.reads_cut) == (None, 0, 0)


def test_a_high_grade_beside_a_missing_term_reason_is_counted_in_every_arm() -> None:
    """Issue 25's bench count: `high` next to "the cited passage does not mention ..." is an
    overstatement; the same reason at medium, or high with other reasons, is not."""
    from bench.honesty import overstated_line

    q = Question("q1", "who founded ghana airways?", ("Nkrumah",), "NQ")
    said = make_result("Kwame Nkrumah founded it [1].", [("http://a.example/", "Nkrumah")])
    missing = ("the cited passage does not mention 'ghana'",)
    high = score(q, Observation(replace(said, confidence_reasons=missing), 10))
    medium = score(
        q, Observation(replace(said, confidence="medium", confidence_reasons=missing), 10)
    )
    fine = score(
        q, Observation(replace(said, confidence_reasons=("the lead claim gives a name",)), 10)
    )
    assert high.overstated and not medium.overstated and not fine.overstated
    line = overstated_line({"quick": [high, fine], "deep": [medium]}, {"quick": [fine]})
    assert (
        "quick 1 of 2" in line and "deep 0 of 0" in line and "quick (unanswerable) 0 of 1" in line
    )
