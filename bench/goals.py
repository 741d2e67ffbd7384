"""Issue 3's goals (no LLM configured), each with how far the measured figure is."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .render import Goal, goal
from .speed import p

if TYPE_CHECKING:
    from .run import Report


def goals(report: Report) -> list[Goal]:
    s = report.summaries
    quick = {label: arms.get("quick") for label, arms in s.items()}

    def value(label: str, key: str) -> float | None:
        summary = quick.get(label)
        return None if summary is None else getattr(summary, key).value

    rows = report.speed["latency"]
    no_latency, slow = rows[0].in_process_ms, rows[1].in_process_ms
    rss = max((c.max_rss_mb for r in rows for c in r.cli), default=None)
    return [
        goal("gold page among sources, NQ", 0.95, value("NQ", "gold_any")),
        goal("gold page among sources, PubMedQA", 0.95, value("PubMedQA", "gold_any")),
        goal("both gold pages among sources, HotpotQA", 0.85, value("HotpotQA", "gold_all")),
        goal("all gold pages among sources, MuSiQue", 0.85, value("MuSiQue", "gold_all")),
        goal("answer in kept passages, NQ", 0.90, value("NQ", "answer_in_passages")),
        goal("answer in extractive answer text, NQ", 0.75, value("NQ", "answer_in_text")),
        goal(
            "in-process quick p50, no injected latency",
            300,
            p(no_latency, 50),
            at_most=True,
            unit=" ms",
        ),
        goal("in-process quick p50, 200 ms per page", 1500, p(slow, 50), at_most=True, unit=" ms"),
        goal(
            "extraction + passages on one core",
            100,
            report.speed["throughput"].pages_per_s,
            unit=" pages/s",
        ),
        goal("CLI peak RSS", 250, rss, at_most=True, unit=" MB"),
    ]
