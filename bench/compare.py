"""Arms side by side: headline rates, paired differences against quick, and how each arm ran.

Wilson intervals of two arms overlap for most real differences at these sample sizes, so the
question "does quick+hops beat quick?" is answered on the questions where the two disagree
(`sleuth.evaluate.paired`): the difference, its 95% interval, and the discordant counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sleuth.evaluate.paired import Flag, Paired, pair
from sleuth.evaluate.report import fmt_rate, rate_json
from sleuth.evaluate.score import Rate, Score, Summary, percentile

from .speed import fmt_ms

HEADLINE = (
    ("gold pages among sources (all)", "gold_all"),
    ("gold page among sources (any)", "gold_any"),
    ("answer in kept passages", "answer_in_passages"),
    ("answer in answer text", "answer_in_text"),
)
FLAGS: dict[str, Flag] = {
    "gold_all": lambda s: s.gold_all,
    "gold_any": lambda s: s.gold_any,
    "answer_in_passages": lambda s: s.answer_in_passages,
    "answer_in_text": lambda s: s.answer_in_text,
}
Rows = Mapping[str, Sequence[Score]]  # arm -> scored questions of one dataset
Subset = Callable[[Score], bool]


def headline_table(summaries: Mapping[str, Mapping[str, Summary]], arms: Sequence[str]) -> str:
    """One row per dataset and headline figure, one column per arm."""
    lines = [
        "| dataset | figure | " + " | ".join(arms) + " |",
        "|---|---" + "|---" * len(arms) + "|",
    ]
    for label, by_arm in summaries.items():
        for name, key in HEADLINE:
            if all(getattr(by_arm[a], key).n == 0 for a in arms if a in by_arm):
                continue
            cells = [fmt_rate(getattr(by_arm[a], key)) if a in by_arm else "-" for a in arms]
            lines.append(f"| {label} | {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


Comparison = tuple[str, str, Paired]  # (arm, figure key, its pairing with the reference)


def paired_rows(
    rows: Rows, reference: str, others: Sequence[str], subset: Subset | None = None
) -> list[Comparison]:
    """Every other arm against the reference arm on the same questions (or a subset of them)."""
    base = [s for s in rows.get(reference, ()) if subset is None or subset(s)]
    ids = {s.id for s in base}
    out: list[Comparison] = []
    for arm in others:
        if arm not in rows:
            continue
        theirs = [s for s in rows[arm] if s.id in ids]
        out += [(arm, key, pair(theirs, base, FLAGS[key])) for _, key in HEADLINE]
    return [(arm, key, p) for arm, key, p in out if p.n]


def paired_table(comparisons: Sequence[Comparison], reference: str) -> str:
    names = dict((key, name) for name, key in HEADLINE)
    lines = [
        f"| arm − {reference} | figure | difference [95% interval] | better / worse "
        "(questions) | McNemar p | reading |",
        "|---|---|---|---|---|---|",
    ]
    for arm, key, p in comparisons:
        lines.append(
            f"| {arm} | {names[key]} | {fmt_difference(p)} | +{p.only_a} / −{p.only_b} | "
            f"{p.p_value:.2f} | {reading(p)} |"
        )
    return "\n".join(lines) + "\n"


def fmt_difference(p: Paired) -> str:
    if p.difference is None or p.interval is None:
        return "n/a"
    low, high = p.interval
    return f"{p.difference:+.2f} [{low:+.2f} … {high:+.2f}] n={p.n}"


def reading(p: Paired) -> str:
    if p.within_noise:
        return "within noise"
    return "better" if (p.difference or 0) > 0 else "worse"


def paired_json(comparisons: Sequence[Comparison]) -> list[dict[str, Any]]:
    return [
        {
            "arm": arm,
            "figure": key,
            "n": p.n,
            "better": p.only_a,
            "worse": p.only_b,
            "difference": None if p.difference is None else round(p.difference, 4),
            "ci95": None if p.interval is None else [round(x, 4) for x in p.interval],
            "mcnemar_p": round(p.p_value, 4),
        }
        for arm, key, p in comparisons
    ]


def run_stats(scores: Sequence[Score]) -> dict[str, Any]:
    """How an arm ran: its plans and hops (usage.plan, usage.hops), rounds, cut reads, latency."""
    n = len(scores)
    latencies = [float(s.latency_ms) for s in scores]
    cut = Rate(sum(s.reads_cut > 0 for s in scores), n)
    return {
        "n": n,
        "plan": dict(Counter(s.plan or "failed" for s in scores).most_common()),
        "hops": {str(k): v for k, v in sorted(Counter(s.hops for s in scores).items())},
        "rounds_mean": _mean([s.rounds for s in scores]),
        "searches_mean": _mean([s.searches for s in scores]),
        "pages_read_mean": _mean([s.pages_read for s in scores]),
        "runs_with_reads_cut": rate_json(cut),
        "reads_cut_mean": _mean([s.reads_cut for s in scores]),
        "latency_ms": {f"p{q}": percentile(latencies, q) for q in (50, 90, 99)},
    }


def run_stats_table(rows: Rows) -> str:
    lines = [
        "| arm | plan | hops | rounds · searches · pages read (mean) | runs with a read cut "
        "short | latency p50 / p90 / p99 |",
        "|---|---|---|---|---|---|",
    ]
    for arm, scores in rows.items():
        st = run_stats(scores)
        cut = st["runs_with_reads_cut"]
        cut_text = fmt_rate(Rate(cut["hits"], cut["n"]))
        lat = " / ".join(fmt_ms(st["latency_ms"][k]) for k in ("p50", "p90", "p99"))
        lines.append(
            f"| {arm} | {_counts(st['plan'])} | {_counts(st['hops'])} | "
            f"{st['rounds_mean']:.1f} · {st['searches_mean']:.1f} · "
            f"{st['pages_read_mean']:.1f} | {cut_text} ({st['reads_cut_mean']:.1f} pages) "
            f"| {lat} |"
        )
    return "\n".join(lines) + "\n"


def _counts(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items())


def _mean(values: Sequence[int]) -> float:
    return sum(values) / len(values) if values else 0.0
