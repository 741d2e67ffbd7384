"""The reader's ranker (issue 25, seventh round): a conditional logit picks the lead; the
head's calibrated probabilities, the lead's among them, still decide whether the run answers
and whether the lead can be `high`."""

from __future__ import annotations

from typing import Any

import pytest

from sleuth.pipeline import reader
from sleuth.pipeline.asks import asks
from sleuth.pipeline.sentences import score, sentences, title_cover
from sleuth.types import Passage, Source

QUESTION = "When was the Harrow bell tower completed?"
TEXT = (
    "The Harrow bell tower was completed long after the rival Weir Obelisk. "
    "Its builders hung six bells when the work ended in 1907. "
    "Visitors to the Harrow tower climb 212 steps to its bells."
)
RANK = reader.FEATURES.index("lexical_rank")


def _weights(at: int, value: float, width: int) -> list[float]:
    out = [0.0] * width
    out[at] = value
    return out


def _data(ranker: list[float] | None, answers_at: float) -> dict[str, Any]:
    """A reader whose head likes the best word overlap (lexical rank 0) and whose ranker,
    when given, likes the worst."""
    lexical: dict[str, Any] = {
        "weights": _weights(RANK, 4.0, len(reader.FEATURES)),
        "bias": -2.0,
        "answers_at": answers_at,
    }
    if ranker is not None:
        lexical["ranker"] = {"weights": ranker}
    return {"features": list(reader.FEATURES), "lexical": lexical}


def _read(model: reader.Reader) -> tuple[list[tuple[float, str]], float]:
    source = Source(1, "https://example.org/harrow", "Harrow bell tower", 1.0,
                    (Passage(TEXT, 1.0, 0),), text=TEXT)  # fmt: skip
    wanted = asks(QUESTION)
    titles = title_cover([source], wanted)
    ranked = sorted(score(sentences([source]), wanted), key=lambda s: -s.value)
    read = model.read(ranked, wanted, [source])
    subject = max(titles.values(), default=0.0)
    return [(p, s.cand.text) for p, s in read], subject


def test_without_a_ranker_the_likeliest_sentence_leads() -> None:
    read, _ = _read(reader.load(_data(None, 0.5), None))
    assert [p for p, _ in read] == sorted((p for p, _ in read), reverse=True)


def test_the_ranker_picks_the_lead_and_the_others_follow_by_probability() -> None:
    plain, _ = _read(reader.load(_data(None, 0.5), None))
    ranked = reader.load(_data(_weights(RANK, -5.0, len(reader.FEATURES)), 0.5), None)
    read, _ = _read(ranked)
    assert len(read) == len(plain) >= 3
    # the ranker's pick (the worst word overlap) leads, with the head's own probability
    assert read[0] == plain[-1]
    assert read[0][0] < max(p for p, _ in read)
    assert read[1:] == plain[:-1]  # the others, likeliest first


def test_the_run_decision_reads_the_probability_of_the_lead_it_gives() -> None:
    """The likeliest sentence would pass `answers_at`; the lead the ranker picked does not,
    so the run does not answer with it."""
    plain, _ = _read(reader.load(_data(None, 0.5), None))
    between = (plain[0][0] + plain[-1][0]) / 2
    model = reader.load(_data(_weights(RANK, -5.0, len(reader.FEATURES)), between), None)
    source = Source(1, "https://example.org/harrow", "Harrow bell tower", 1.0,
                    (Passage(TEXT, 1.0, 0),), text=TEXT)  # fmt: skip
    wanted = asks(QUESTION)
    ranked = sorted(score(sentences([source]), wanted), key=lambda s: -s.value)
    read = model.read(ranked, wanted, [source])
    assert max(p for p, _ in read) >= between > read[0][0]
    assert not model.answered(read, 1.0)


def test_the_ranker_reads_the_cross_encoder_where_it_read() -> None:
    inputs = reader.Inputs([[0.5] * 2, [0.25] * 2, [0.0] * 2], [3.0, -1.0])
    assert reader.ranking(inputs, encoded=True) == [
        [0.5, 0.5, 3.0, 1.0],
        [0.25, 0.25, -1.0, 1.0],
        [0.0, 0.0, 0.0, 0.0],
    ]
    assert reader.ranking(inputs, encoded=False) == [[0.5, 0.5], [0.25, 0.25], [0.0, 0.0]]


def test_a_ranker_over_other_inputs_does_not_load() -> None:
    with pytest.raises(ValueError, match="ranker"):
        reader.load(_data([1.0] * (len(reader.FEATURES) + 1), 0.5), None)
