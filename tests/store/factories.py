"""Hand-built results and session records for store, export and CLI tests."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sleuth.store import SessionRecord
from sleuth.types import (
    Citation,
    ModelUsage,
    Passage,
    Result,
    Source,
    SourceTrust,
    UnsupportedSentence,
    Usage,
    Verification,
)

ANSWER = """SQLite enables WAL with a pragma [1]. Readers do not block writers [1][2].

## Durability

A crash leaves committed transactions intact [2].
"""


def make_source(n: int, url: str, text: str = "", **kw: Any) -> Source:
    return Source(
        number=n,
        url=url,
        title=kw.pop("title", f"Source {n}"),
        score=kw.pop("score", 1.0 / (n + 0.7)),
        passages=kw.pop("passages", (Passage(f"passage of source {n}", 0.123456789, 10),)),
        fetched_at=kw.pop("fetched_at", "2026-05-07T13:45:09Z"),
        text=text or f"The full extracted text of source {n}. " * 3,
        **kw,
    )


def make_result(
    answer: str | None = ANSWER,
    sources: tuple[Source, ...] | None = None,
    model: str = "gpt-test",
    cost: float | None = 0.0123,
    **kw: Any,
) -> Result:
    if sources is None:
        sources = (
            make_source(1, "https://www.sqlite.org/wal.html", authority="primary",
                        published="2024-03-15", title="Write-Ahead Logging"),
            make_source(2, "https://blog.example.net/sqlite", snippet=True),
        )  # fmt: skip
    return Result(
        query=kw.pop("query", "how does sqlite wal work?"),
        answer=answer,
        citations=tuple(Citation(s.number, s.url, s.title, s.passages[0].text) for s in sources),
        sources=sources,
        queries=("sqlite wal", "sqlite durability"),
        confidence=kw.pop("confidence", "high"),
        verification=Verification(
            3, 2, (UnsupportedSentence("A crash leaves committed transactions intact.", (2,)),)
        ),
        source_trust=SourceTrust("mixed", {"primary": 1, "reputable": 0, "unknown": 1, "low": 0}),
        usage=Usage(
            searches=2,
            pages_read=2,
            rounds=kw.pop("rounds", 1),
            plan="single",
            duration_ms=4321,
            by_model={model: ModelUsage(2, 1000, 200, cost)},
        ),
        writer="llm",
        **kw,
    )


def make_record(
    when: datetime | None = None,
    question: str = "how does sqlite wal work?",
    **kw: Any,
) -> SessionRecord:
    model = kw.pop("model", "gpt-test")
    result = kw.pop("result", None) or make_result(query=question, model=model)
    return SessionRecord.new(
        question,
        result,
        options=kw.pop("options", {"depth": "quick", "source_authority": "prefer"}),
        now=when or datetime(2026, 5, 7, 13, 45, 9, tzinfo=UTC),
        models=(model,),
        **kw,
    )
