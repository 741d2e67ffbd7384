"""bench.turns: two checkouts answer the same questions taking turns; the warm-up is not counted."""

from __future__ import annotations

from collections.abc import Callable

from bench.render import speed_section
from bench.speed import Throughput
from bench.turns import WARM_UP, Run, Turns, take_turns


def scripted(name: str, ms: float, calls: list[tuple[str, str]]) -> Callable[[str], Run]:
    def ask(question: str) -> Run:
        calls.append((name, question))
        return Run(ms if question != WARM_UP else 10_000.0)

    return ask


def test_each_question_runs_on_both_sides_alternating_who_goes_first() -> None:
    calls: list[tuple[str, str]] = []
    turns = take_turns(
        scripted("this", 200.0, calls), scripted("before", 100.0, calls), ["a", "b", "c"], Turns()
    )
    assert calls == [
        ("this", WARM_UP),
        ("before", WARM_UP),
        ("this", "a"),
        ("before", "a"),
        ("before", "b"),
        ("this", "b"),
        ("this", "c"),
        ("before", "c"),
    ]
    assert turns.ms(turns.after) == [200.0] * 3  # the warm-up's 10 s is not among them
    assert turns.ms(turns.before) == [100.0] * 3


def test_passes_add_to_the_same_turns() -> None:
    turns = Turns()
    for _ in range(2):
        take_turns(scripted("this", 3.0, []), scripted("before", 1.0, []), ["a"], turns)
    assert turns.to_json()["this_ms"] == [3.0, 3.0]
    assert turns.to_json()["before_ms"] == [1.0, 1.0]


def test_the_speed_section_shows_before_and_the_ratio() -> None:
    turns = Turns(
        [Run(200.0, None, 150.0), Run(220.0, "NO_SOURCES: x", 150.0)],
        [Run(100.0, None, 50.0), Run(100.0, None, 50.0)],
    )
    line = turns.line()
    assert "before (baseline src): p50 100 ms, p90 100 ms, CPU p50 50 ms" in line
    assert "n 2, errors 1; this ÷ before (p50): 2.10, CPU 3.00" in line
    section = speed_section(Throughput(1, 1.0, 1), [], turns)
    assert line in section
    assert "taking turns" not in speed_section(Throughput(1, 1.0, 1), [])
