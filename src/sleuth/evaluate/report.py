"""Render evaluation results: a plain table for the terminal, JSON and markdown reports.

Every rate is printed with its Wilson 95% interval and its denominator, because at the sample
sizes an evaluation can afford a rate without its interval invites over-reading.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from .score import Rate, Score, Summary

RATE_ROWS = (
    ("gold page among sources (any)", "gold_any"),
    ("gold pages among sources (all)", "gold_all"),
    ("answer in kept passages", "answer_in_passages"),
    ("answer in answer text", "answer_in_text"),
    ("answer in the answer's first sentence", "answer_in_lead"),
    ("citations supported", "cites_supported"),
    ("answer says the sources do not contain it", "declined"),
    ("gold pages: among search candidates", "gold_pages_searched"),
    ("gold pages: read", "gold_pages_read"),
    ("gold pages: kept as sources", "gold_pages_kept"),
    ("runs completed", "completed"),
)


def fmt_rate(rate: Rate) -> str:
    if rate.value is None or rate.interval is None:
        return "n/a"
    low, high = rate.interval
    return f"{rate.value:.2f} [{low:.2f}–{high:.2f}] n={rate.n}"


def fmt_ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f} ms"


def rate_json(rate: Rate) -> dict[str, Any]:
    interval = rate.interval
    return {
        "value": None if rate.value is None else round(rate.value, 4),
        "hits": rate.hits,
        "n": rate.n,
        "ci95": None if interval is None else [round(x, 4) for x in interval],
    }


def summary_json(summary: Summary) -> dict[str, Any]:
    out: dict[str, Any] = {"n": summary.n}
    for _, key in RATE_ROWS:
        out[key] = rate_json(getattr(summary, key))
    out["calibration"] = {g: rate_json(r) for g, r in summary.calibration.items()}
    out["latency_ms"] = summary.latency_ms
    out["pages_read_mean"] = round(summary.pages_read_mean, 2)
    out["pages_per_s"] = None if summary.pages_per_s is None else round(summary.pages_per_s, 2)
    out["searches_mean"] = round(summary.searches_mean, 2)
    out["llm_calls"], out["cost_usd"] = summary.llm_calls, summary.cost_usd
    return out


def summary_lines(summary: Summary) -> list[tuple[str, str]]:
    """(label, value) pairs: every figure of one summary, in reading order."""
    lines = [(label, fmt_rate(getattr(summary, key))) for label, key in RATE_ROWS]
    for grade, rate in summary.calibration.items():
        lines.append((f"accuracy when confidence is {grade}", fmt_rate(rate)))
    lat = summary.latency_ms
    lines.append(
        ("latency p50 / p90 / p99", " / ".join(fmt_ms(lat[k]) for k in ("p50", "p90", "p99")))
    )
    pps = "n/a" if summary.pages_per_s is None else f"{summary.pages_per_s:.1f}"
    lines.append(("pages read (mean) · pages/s", f"{summary.pages_read_mean:.1f} · {pps}"))
    cost = "n/a" if summary.cost_usd is None else f"${summary.cost_usd:.4f}"
    lines.append(
        (
            "searches (mean) · LLM calls · cost",
            f"{summary.searches_mean:.1f} · {summary.llm_calls} · {cost}",
        )
    )
    return lines


def table(groups: Mapping[str, Summary]) -> str:
    """One column per group (dataset), one row per figure: for stdout."""
    names = list(groups)
    rows = (
        [
            [label, *[dict(summary_lines(groups[n]))[label] for n in names]]
            for label, _ in summary_lines(groups[names[0]])
        ]
        if names
        else []
    )
    header = ["", *[f"{n} (n={groups[n].n})" for n in names]]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    render = [
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
        for r in [header, *rows]
    ]
    return "\n".join(render) + "\n"


def markdown_table(groups: Mapping[str, Summary]) -> str:
    names = list(groups)
    if not names:
        return ""
    out = [
        "| figure | " + " | ".join(f"{n} (n={groups[n].n})" for n in names) + " |",
        "|---" * (len(names) + 1) + "|",
    ]
    per_group = [dict(summary_lines(groups[n])) for n in names]
    for label, _ in summary_lines(groups[names[0]]):
        out.append(f"| {label} | " + " | ".join(g[label] for g in per_group) + " |")
    return "\n".join(out) + "\n"


def rows_markdown(rows: Sequence[Score]) -> str:
    out = [
        "| id | dataset | gold kept | in passages | in answer | cites | conf | ms | error |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        passages = "n/a" if r.answer_in_passages is None else _yes(r.answer_in_passages)
        answer = _yes(r.answer_in_text) + (f" ({r.verdict})" if r.verdict else "")
        error = (r.error or "").replace("|", "\\|")[:80]
        out.append(
            f"| {r.id} | {r.dataset} | {r.gold_kept}/{r.gold_total} | {passages} | "
            f"{answer} | {r.cites_supported}/{r.cites_checked} | {r.confidence or '-'} | "
            f"{r.latency_ms} | {error} |"
        )
    return "\n".join(out) + "\n"


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def row_json(row: Score) -> dict[str, Any]:
    data = asdict(row)
    data["gold_any"], data["gold_all"] = row.gold_any, row.gold_all
    return data
