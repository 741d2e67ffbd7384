"""The bench's scaling section: throughput ratios, the backend overhead and the tables."""

from __future__ import annotations

import pytest
from bench.render import Overhead, ScaleRow, Scaling, overhead_lines, ratios, scaling_section
from bench.run import parse
from bench.scaling import Options, options_from, to_json


def rows() -> list[ScaleRow]:
    return [
        ScaleRow(1, 48, 60.0, run_ms=[1000.0, 2000.0, 3000.0], cpu_s=30.0),
        ScaleRow(2, 48, 30.0, failed=1, run_ms=[1500.0], cpu_s=30.0),
        ScaleRow(4, 48, 24.0, cpu_s=36.0),
    ]


def test_throughput_is_questions_per_minute_and_each_ratio_is_to_one_process() -> None:
    measured = rows()
    assert [r.per_min for r in measured] == [48.0, 96.0, 120.0]
    assert ratios(measured) == [1.0, 2.0, 2.5]
    assert measured[2].cores_busy == pytest.approx(1.5)
    assert ratios([ScaleRow(1, 0, 0.0), ScaleRow(2, 5, 1.0)]) == [None, None]
    assert ratios([]) == []


def test_the_overhead_is_the_difference_of_medians_and_the_paired_median() -> None:
    overhead = Overhead([1000.0, 1100.0, 900.0], [1050.0, 1180.0, 930.0])
    assert overhead.medians() == (1000.0, 1050.0)
    assert overhead.paired_ms() == pytest.approx([50.0, 80.0, 30.0])
    text = overhead_lines(overhead)
    assert "| SQLite | 3 | 1000 |" in text and "| PostgreSQL | 3 | 1050 |" in text
    assert "difference of the medians: +50 ms (+5.0%)" in text
    assert "median of the paired differences: +50 ms" in text
    assert overhead_lines(Overhead([], [])) == "PostgreSQL against SQLite: no runs.\n"


def test_the_section_renders_both_tables_or_says_why_it_was_skipped() -> None:
    replicas = [ScaleRow(1, 32, 16.0, cpu_s=8.0), ScaleRow(2, 32, 9.0, retried=3, cpu_s=9.0)]
    wide = ScaleRow(1, 48, 40.0, note="`--concurrency 8`")
    figures = Scaling([*rows(), wide], replicas, Overhead([1.0], [2.0]), ["machine: 2 cores"])
    text = scaling_section(figures)
    assert text.startswith("- machine: 2 cores\n")
    assert "| 1 | 48 | 60.0 | 48.0 | 1.00 | 2.00 | 0 | 0.50 |" in text
    assert "| 2 | 48 | 30.0 | 96.0 | 2.00 | 1.50 | 1 | 1.00 |" in text
    assert "| 4 | 48 | 24.0 | 120.0 | 2.50 | n/a | 0 | 1.50 |" in text  # no run times
    assert "| 1 (`--concurrency 8`) | 48 | 40.0 | 72.0 | 1.50 | n/a | 0 | n/a |" in text
    assert "| 2 | 32 | 9.0 | 213.3 | 1.78 | n/a | 0 | 1.00 / 3 |" in text
    skipped = Scaling([], [], None, [], skipped="no PostgreSQL server binaries")
    assert scaling_section(skipped) == "Not measured: no PostgreSQL server binaries.\n"
    assert to_json(skipped)["skipped"] == "no PostgreSQL server binaries"


def test_the_json_keeps_every_figure_and_ratio() -> None:
    data = to_json(Scaling(rows(), [], Overhead([1000.4], [1100.6]), ["x"]))
    assert [w["ratio_to_one"] for w in data["workers"]] == [1.0, 2.0, 2.5]
    assert data["workers"][0]["run_ms"] == [1000, 2000, 3000]
    assert data["overhead"] == {"sqlite_ms": [1000], "postgres_ms": [1101]}


def test_the_run_flags_set_the_section_options() -> None:
    args = parse(["--only", "scaling", "--scaling-questions", "8", "--scaling-latency", "0.7"])
    options = options_from(args)
    assert args.only == "scaling" and not args.no_scaling
    assert (options.questions, options.latency_s) == (8, 0.7)
    assert options.workers == Options().workers == (1, 2, 4)
