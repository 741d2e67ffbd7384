"""A scored row with every field set, for tests of what is computed from rows."""

from __future__ import annotations

from sleuth.evaluate.score import Score


def row(qid: str, hit: bool | None) -> Score:
    return Score(
        id=qid,
        dataset="ds",
        question="?",
        ok=True,
        error=None,
        gold_total=1,
        gold_candidates=1,
        gold_read=1,
        gold_kept=1,
        answer_in_passages=hit,
        answer_in_text=bool(hit),
        verdict=None,
        cites_checked=0,
        cites_supported=0,
        confidence=None,
        latency_ms=1,
        pages_read=1,
        searches=1,
        llm_calls=0,
        cost_usd=None,
    )
