"""Issue 10's honesty figures: the unanswerable arm, calibration tables and the goals.

The unanswerable arm asks the same questions on a second offline web that hides their gold
pages (`offline_web.py --hide-ids`), keeping only the questions no remaining page answers
(`sleuth.evaluate.unanswerable`). Each calibration table puts, per confidence level, how many
answers get it and how often they are right, answerable and unanswerable side by side.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sleuth.evaluate.calibration import calibrate, calibration_json, calibration_table
from sleuth.evaluate.report import fmt_rate
from sleuth.evaluate.score import Rate, Score, rate_of

from .render import Goal, goal
from .speed import p

if TYPE_CHECKING:
    from .run import Report

UNANSWERABLE_ARMS = ("quick", "deep")
SPAN_DATASETS = ("NQ", "HotpotQA", "MuSiQue")  # yes/no questions cannot be made unanswerable
POOLED = "NQ + HotpotQA + MuSiQue"
# Quick p50 on the offline web (no injected latency) in the last bench before issue 10
# (bench/results/2026-11-30-0.1.0.md); issue 10 allows at most 1.25 times this.
QUICK_P50_BEFORE_MS = 124.0


def groups(scores: Sequence[Score]) -> dict[str, list[Score]]:
    """Each span-answer dataset, then all of them pooled."""
    out = {label: [s for s in scores if s.dataset == label] for label in SPAN_DATASETS}
    out[POOLED] = [s for s in scores if s.dataset in SPAN_DATASETS]
    return out


def section(
    answerable: Mapping[str, Sequence[Score]], hidden: Mapping[str, Sequence[Score]]
) -> str:
    """Markdown: per arm and dataset, the calibration table and the not-found rate."""
    parts = [
        "Unanswerable = the same questions on an offline web with their gold pages hidden "
        "(`offline_web.py --hide-ids`), kept only when no remaining page contains a gold "
        "answer (or a multi-word name's last word). Right: answerable — the gold answer is in "
        "the answer text; unanswerable — the answer opens by saying the sources do not contain "
        "it. given: answers with that confidence, of all answers.\n",
    ]
    for arm in UNANSWERABLE_ARMS:
        if arm not in hidden or arm not in answerable:
            continue
        mine, theirs = groups(answerable[arm]), groups(hidden[arm])
        for label in (POOLED, *SPAN_DATASETS):
            cal = calibrate(mine[label], theirs[label])
            parts.append(f"### {arm} · {label}\n")
            parts.append(calibration_table(cal))
            parts.append(
                f"- says the sources do not contain the answer: unanswerable "
                f"{fmt_rate(_declined(theirs[label]))}; answerable "
                f"{fmt_rate(_declined(mine[label]))}\n"
            )
    parts.append(overstated_line(answerable, hidden))
    return "\n".join(parts)


def overstated_line(
    answerable: Mapping[str, Sequence[Score]], hidden: Mapping[str, Sequence[Score]]
) -> str:
    """Issue 25: `high` never sits beside a reason naming a question term the cited passage
    lacks, in any arm, answerable or not."""
    counts = [
        f"{arm}{' (unanswerable)' if web is hidden else ''} {_overstated(scores)}"
        for web in (answerable, hidden)
        for arm, scores in web.items()
    ]
    return (
        "- `high` beside a reason naming a missing question term (issue 25 wants none), of "
        "the arm's `high` answers: " + " · ".join(counts) + "\n"
    )


def _overstated(scores: Sequence[Score]) -> str:
    high = [s for s in scores if s.ok and s.confidence == "high"]
    return f"{sum(s.overstated for s in high)} of {len(high)}"


def _declined(scores: Sequence[Score]) -> Rate:
    return rate_of(s.declined for s in scores if s.ok)


def to_json(
    answerable: Mapping[str, Sequence[Score]], hidden: Mapping[str, Sequence[Score]]
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for arm in UNANSWERABLE_ARMS:
        if arm in hidden and arm in answerable:
            mine, theirs = groups(answerable[arm]), groups(hidden[arm])
            out[arm] = {
                label: calibration_json(calibrate(mine[label], theirs[label]))
                for label in (POOLED, *SPAN_DATASETS)
            }
    return out


def goals(report: Report) -> list[Goal]:
    quick = report.scores.get("quick", [])
    hidden = groups(report.unanswerable.get("quick", []))[POOLED]
    nq = [s for s in quick if s.dataset == "NQ"]
    nq_cal = calibrate(nq, [])
    s = report.summaries
    hotpot = s["HotpotQA"].get("quick")
    nq_sum = s["NQ"].get("quick")
    no_latency = report.speed["latency"][0].in_process_ms
    done = [x for x in hidden if x.ok]
    return [
        goal(
            "unanswerable: confidence high",
            0.05,
            Rate(sum(x.confidence == "high" for x in done), len(done)).value,
            at_most=True,
        ),
        goal("unanswerable: says the sources do not contain it", 0.80, _declined(hidden).value),
        goal("answerable NQ: right when high", 0.90, nq_cal.answerable["high"].right.value),
        goal("answerable NQ: given high", 0.50, nq_cal.answerable["high"].given.value),
        goal("NQ gold page among sources", 0.95, nq_sum.gold_any.value if nq_sum else None),
        goal(
            "NQ answer in kept passages",
            0.92,
            nq_sum.answer_in_passages.value if nq_sum else None,
        ),
        goal(
            "NQ answer in the first sentence", 0.70, nq_sum.answer_in_lead.value if nq_sum else None
        ),
        goal(
            "NQ answer anywhere in the answer",
            0.82,
            nq_sum.answer_in_text.value if nq_sum else None,
        ),
        goal("HotpotQA both gold pages (quick)", 0.80, hotpot.gold_all.value if hotpot else None),
        goal(
            "in-process quick p50 ≤ 1.25 × before",
            1.25 * QUICK_P50_BEFORE_MS,
            p(no_latency, 50),
            at_most=True,
            unit=" ms",
        ),
    ]
