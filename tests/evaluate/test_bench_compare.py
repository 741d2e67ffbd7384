"""The bench's side-by-side tables: paired rows against quick and each arm's run stats."""

from __future__ import annotations

from dataclasses import replace

from bench.compare import paired_rows, paired_table, run_stats, run_stats_table

from .rows import row


def test_paired_rows_compare_each_arm_with_quick_on_the_same_questions() -> None:
    quick = [row(str(i), i < 2) for i in range(6)]
    hops = [row(str(i), i < 5) for i in range(6)]
    comparisons = paired_rows({"quick": quick, "quick+hops": hops}, "quick", ["quick+hops"])
    passages = {key: p for _, key, p in comparisons}["answer_in_passages"]
    assert (passages.only_a, passages.only_b, passages.n) == (3, 0, 6)
    table = paired_table(comparisons, "quick")
    assert "| quick+hops | answer in kept passages | +0.50 [" in table
    assert "+3 / −0" in table


def test_a_subset_restricts_the_pairing() -> None:
    quick = [row(str(i), False) for i in range(4)]
    hops = [row(str(i), True) for i in range(4)]
    only = paired_rows(
        {"quick": quick, "quick+hops": hops}, "quick", ["quick+hops"], lambda s: s.id == "0"
    )
    assert {p.n for _, _, p in only} == {1}


def test_run_stats_count_plans_hops_and_cut_reads() -> None:
    rows = [
        replace(row("1", True), plan="multi_hop", hops=1, rounds=3, reads_cut=2),
        replace(row("2", True), plan="single", rounds=1),
        replace(row("3", True), plan="multi_hop", rounds=2, reads_cut=0),
    ]
    stats = run_stats(rows)
    assert stats["plan"] == {"multi_hop": 2, "single": 1}
    assert stats["hops"] == {"0": 2, "1": 1}
    assert stats["rounds_mean"] == 2.0
    assert stats["runs_with_reads_cut"]["hits"] == 1
    assert "| arm-a | multi_hop 2, single 1 | 0 2, 1 1 |" in run_stats_table({"arm-a": rows})
