from __future__ import annotations

import json

from sleuth.store.codec import result_from_json, result_to_json
from sleuth.types import Result

from .factories import make_result


def _roundtrip(result: Result) -> Result:
    return result_from_json(json.loads(json.dumps(result_to_json(result))))


def test_exact_round_trip_keeps_text_scores_and_writer() -> None:
    result = make_result()
    back = _roundtrip(result)
    assert back == result
    assert back.sources[0].text.startswith("The full extracted text")
    assert back.sources[0].passages[0].score == 0.123456789
    assert back.usage.cost_usd == result.usage.cost_usd


def test_round_trip_of_structured_data_and_empty_answer() -> None:
    result = make_result(answer=None, data={"name": "SQLite", "year": 2000})
    assert _roundtrip(result) == result
    assert _roundtrip(make_result(answer="")).answer == ""


def test_without_text_is_the_public_shape_plus_exact_fields() -> None:
    result = make_result()
    data = result_to_json(result, with_text=False)
    assert "text" not in data["sources"][0]
    public = result.to_json()
    assert set(public) <= set(data)
    assert data["citations"] == public["citations"]
    assert _roundtrip(result) != result_from_json(data)  # text is gone
    assert result_from_json(data).sources[0].text == ""


def test_reads_the_public_shape() -> None:
    result = make_result()
    back = result_from_json(result.to_json())
    assert back.answer == result.answer
    assert [s.url for s in back.sources] == [s.url for s in result.sources]
    assert back.usage.by_model == result.usage.by_model


def test_confidence_reasons_survive_a_saved_session() -> None:
    reasons = ("the lead claim gives a date: 1889", "no other kept page states the same answer")
    result = make_result(confidence_reasons=reasons)
    back = _roundtrip(result)
    assert back.confidence_reasons == reasons
    assert result_to_json(result)["confidence_reasons"] == list(reasons)
