"""The bench's markdown: quality per dataset with baseline ratios, speed, goals."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from sleuth.evaluate.report import RATE_ROWS, summary_lines
from sleuth.evaluate.score import Summary

from .speed import CliRun, Throughput, fmt_ms, p
from .turns import Turns


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


def speed_section(
    throughput: Throughput, rows: Sequence[LatencyRow], turns: Turns | None = None
) -> str:
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
            f"| {r.condition} | {fmt_ms(p(r.in_process_ms, 50))} | "
            f"{fmt_ms(p(r.in_process_ms, 90))} | {len(r.in_process_ms)} | "
            f"{r.cut_runs} of {len(r.in_process_ms)} runs | "
            f"{fmt_ms(p(cli_s, 50))} | {fmt_ms(p(cli_s, 90))} | {len(r.cli)} | "
            f"{rss:.0f} MB | {codes} |"
        )
    if turns is not None:
        out += ["", "In-process quick, no injected latency, each checkout in a worker process of "
                "its own, taking turns question by question (bench/turns.py):", "",
                f"- {turns.line()}", *[f"  - {note}" for note in turns.notes]]  # fmt: skip
    return "\n".join(out) + "\n"


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


@dataclass(frozen=True, slots=True)
class ScaleRow:
    """One configuration of a scaling measurement: `processes` answering the same questions."""

    processes: int
    questions: int
    seconds: float  # the first question queued (or sent) to the last one answered
    failed: int = 0
    run_ms: Sequence[float] = ()  # each question's own wall time
    cpu_s: float | None = None  # the processes' CPU time (user + system) during the load
    retried: int = 0  # 503 SERVER_BUSY answers retried after Retry-After (the service)
    note: str = ""  # how this row differs from the others (its concurrency)

    @property
    def per_min(self) -> float:
        return 60 * self.questions / self.seconds if self.seconds > 0 else 0.0

    @property
    def cores_busy(self) -> float | None:
        return None if self.cpu_s is None or self.seconds <= 0 else self.cpu_s / self.seconds


def ratios(rows: Sequence[ScaleRow]) -> list[float | None]:
    """Each row's throughput as a ratio to the first row's (one process)."""
    base = rows[0].per_min if rows else 0.0
    return [r.per_min / base if base > 0 else None for r in rows]


@dataclass(frozen=True, slots=True)
class Overhead:
    """The same fresh runs on a SQLite and a PostgreSQL server, paired question by question."""

    sqlite_ms: Sequence[float]
    postgres_ms: Sequence[float]

    def medians(self) -> tuple[float | None, float | None]:
        return p(self.sqlite_ms, 50), p(self.postgres_ms, 50)

    def paired_ms(self) -> list[float]:
        """PostgreSQL minus SQLite for each question."""
        return [b - a for a, b in zip(self.sqlite_ms, self.postgres_ms, strict=True)]


@dataclass(frozen=True, slots=True)
class Scaling:
    workers: Sequence[ScaleRow]
    replicas: Sequence[ScaleRow]
    overhead: Overhead | None
    setup: Sequence[str]  # one line each: the web, the processes, the database, the balancer
    skipped: str | None = None  # why nothing was measured (no PostgreSQL...)


def scaling_section(figures: Scaling) -> str:
    if figures.skipped:
        return f"Not measured: {figures.skipped}.\n"
    parts = ["".join(f"- {line}\n" for line in figures.setup)]
    parts.append(
        "A batch on the queue: `sleuth worker` processes answering one queued batch (median "
        "run: each result's `usage.duration_ms`).\n"
    )
    parts.append(_scale_table(figures.workers, "workers", "workers' CPU, cores busy", _cores))
    parts.append(
        "The service: fresh quick runs (`no_cache`) through `sleuth serve` replicas (median "
        "run: each request's latency at the client, retries included).\n"
    )
    parts.append(
        _scale_table(
            figures.replicas, "replicas", "replicas' CPU, cores busy / 503s retried", _retried
        )
    )
    if figures.overhead is not None:
        parts.append(overhead_lines(figures.overhead))
    return "\n".join(parts)


def _scale_table(
    rows: Sequence[ScaleRow], what: str, extra: str, cell: Callable[[ScaleRow], str]
) -> str:
    lines = [
        f"| {what} | questions | wall s | questions/min | ratio to 1 | median run s | "
        f"failed | {extra} |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row, ratio in zip(rows, ratios(rows), strict=True):
        cells = [
            f"{row.processes} ({row.note})" if row.note else str(row.processes),
            str(row.questions),
            f"{row.seconds:.1f}",
            f"{row.per_min:.1f}",
            _fixed(ratio),
            _fixed(None if (m := p(row.run_ms, 50)) is None else m / 1000),
            str(row.failed),
            cell(row),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _fixed(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _cores(row: ScaleRow) -> str:
    return _fixed(row.cores_busy)


def _retried(row: ScaleRow) -> str:
    return f"{_cores(row)} / {row.retried}"


def overhead_lines(overhead: Overhead) -> str:
    """The PostgreSQL backend's per-run overhead against SQLite's: medians and difference."""
    lite, pg = overhead.medians()
    paired = p(overhead.paired_ms(), 50)
    if lite is None or pg is None or paired is None:
        return "PostgreSQL against SQLite: no runs.\n"
    return (
        "PostgreSQL against SQLite, one `sleuth serve` each, the same fresh quick runs one at "
        "a time, alternating which server goes first:\n\n"
        "| backend | runs | median per-run wall ms | p90 ms |\n| --- | ---: | ---: | ---: |\n"
        f"| SQLite | {len(overhead.sqlite_ms)} | {lite:.0f} | {_p90(overhead.sqlite_ms)} |\n"
        f"| PostgreSQL | {len(overhead.postgres_ms)} | {pg:.0f} | "
        f"{_p90(overhead.postgres_ms)} |\n\n"
        f"- difference of the medians: {pg - lite:+.0f} ms ({(pg - lite) / lite:+.1%}); "
        f"median of the paired differences: {paired:+.0f} ms\n"
    )


def _p90(values: Sequence[float]) -> str:
    value = p(values, 90)
    return "n/a" if value is None else f"{value:.0f}"
