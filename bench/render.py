"""The bench's markdown: quality per dataset with baseline ratios, speed, goals."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sleuth.evaluate.report import RATE_ROWS, summary_lines
from sleuth.evaluate.score import Summary

from .speed import CliRun, Throughput, p


@dataclass(frozen=True, slots=True)
class LatencyRow:
    condition: str
    in_process_ms: Sequence[float]
    cli: Sequence[CliRun]
    cut_runs: int = 0  # in-process runs whose read phase ended with pages still loading


@dataclass(frozen=True, slots=True)
class Goal:
    name: str
    target: str
    measured: float | None
    met: bool | None
    unit: str = ""


def quality_table(
    by_arm: Mapping[str, Summary], baselines: Sequence[str], sleuth_arms: Sequence[str]
) -> str:
    """Every figure per arm, then each Sleuth arm's ratio to each baseline ("a / b")."""
    arms = list(by_arm)
    bases = [b for b in baselines if b in by_arm]
    tops = [a for a in sleuth_arms if a in by_arm] if bases else []
    head = ["figure", *arms, *[f"{t} ÷ {' / '.join(bases)}" for t in tops]]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    cells = {a: dict(summary_lines(by_arm[a])) for a in arms}
    rate_keys = dict(RATE_ROWS)
    for label, _ in summary_lines(by_arm[arms[0]]):
        row = [label, *[cells[a][label] for a in arms]]
        key = rate_keys.get(label)
        row += [
            "" if key is None else " / ".join(_ratio(by_arm[t], by_arm[b], key) for b in bases)
            for t in tops
        ]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def _ratio(top: Summary, bottom: Summary, key: str) -> str:
    a, b = getattr(top, key).value, getattr(bottom, key).value
    if a is None or b is None:
        return "n/a"
    if b == 0:
        return "∞" if a > 0 else "n/a"
    return f"{a / b:.2f}"


def speed_section(throughput: Throughput, rows: Sequence[LatencyRow]) -> str:
    out = [
        f"- extraction + passages (trafilatura, split, BM25) on one core: "
        f"**{throughput.pages_per_s:.0f} pages/s** ({throughput.pages} pages, "
        f"{throughput.passages} passages, {throughput.seconds:.2f} s CPU)",
        "",
        "| condition | in-process quick p50 | p90 | n | reads cut by settle wait or deadline | "
        "CLI end-to-end p50 | p90 | n | CLI peak RSS (max) | CLI exit codes |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        cli_s = [c.seconds * 1000 for c in r.cli]
        rss = max((c.max_rss_mb for c in r.cli), default=0.0)
        codes = ",".join(sorted({str(c.exit_code) for c in r.cli})) or "-"
        out.append(
            f"| {r.condition} | {_ms(p(r.in_process_ms, 50))} | "
            f"{_ms(p(r.in_process_ms, 90))} | {len(r.in_process_ms)} | "
            f"{r.cut_runs} of {len(r.in_process_ms)} runs | "
            f"{_ms(p(cli_s, 50))} | {_ms(p(cli_s, 90))} | {len(r.cli)} | "
            f"{rss:.0f} MB | {codes} |"
        )
    return "\n".join(out) + "\n"


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f} ms"


def _number(value: float) -> str:
    return f"{value:.2f}" if abs(value) < 10 else f"{value:,.0f}"


def goals_section(goals: Sequence[Goal]) -> str:
    out = ["| goal | target | measured | status |", "|---|---|---|---|"]
    for g in goals:
        measured = "n/a" if g.measured is None else f"{_number(g.measured)}{g.unit}"
        status = "n/a" if g.met is None else ("met" if g.met else "not met")
        out.append(f"| {g.name} | {g.target} | {measured} | {status} |")
    return "\n".join(out) + "\n"


def goal(
    name: str, target: float, measured: float | None, *, at_most: bool = False, unit: str = ""
) -> Goal:
    sign = "≤" if at_most else "≥"
    met = None if measured is None else (measured <= target if at_most else measured >= target)
    return Goal(name, f"{sign} {target:g}{unit}", measured, met, unit)
