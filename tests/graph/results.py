"""Small hand-built results for the knowledge-graph tests."""

from __future__ import annotations

from sleuth.types import (
    Citation,
    Passage,
    Result,
    Source,
    SourceTrust,
    Usage,
    Verification,
)


def source(number: int, text: str, url: str = "", title: str = "") -> Source:
    return Source(
        number=number,
        url=url or f"https://site{number}.example/page",
        title=title or f"Page {number}",
        score=1.0,
        passages=tuple(Passage(p, 1.0, 0) for p in text.split("\n\n")),
        fetched_at="2026-12-01T10:00:00Z",
    )


def result(
    *sources: Source, cited: tuple[int, ...] | None = None, answer: str = "", query: str = "Q?"
) -> Result:
    numbers = cited if cited is not None else tuple(s.number for s in sources)
    by_number = {s.number: s for s in sources}
    return Result(
        query=query,
        answer=answer,
        citations=tuple(
            Citation(n, by_number[n].url, by_number[n].title, by_number[n].passages[0].text[:300])
            for n in numbers
        ),
        sources=tuple(sources),
        queries=(query,),
        confidence="medium",
        verification=Verification(0, 0),
        source_trust=SourceTrust("mixed", {}),
        usage=Usage(),
        session_id="2026-12-01_100000_abcdef12",
    )


CLOUD = (
    "Example Cloud keeps audit logs for 90 days by default. "
    "Enterprise customers of Example Cloud can extend retention to 400 days. "
    "The Security Team at Example Cloud published the policy on March 5, 2024."
)
RIVAL = (
    "Rival Cloud keeps audit logs for 30 days. "
    "Example Cloud and Rival Cloud both sell to banks in Frankfurt."
)
UNCITED = "Secret Vendor sells Hidden Product in Atlantis since 1999."
