"""In-process quick latency of this checkout beside another one, taking turns question by question.

The bench's in-process latency runs in the bench's own process, so it cannot time another
checkout's code; a figure from another day or another machine is no baseline either (issue 25
measured 192 ms on one machine against 92 ms on another). Here each checkout answers in a worker
process of its own (`python -m bench.turns --worker`, its `src/` first on PYTHONPATH), so both
pay the same: the same questions, the same offline web, the settings of the bench's in-process
latency (searxng, no fallback, no cache), one fresh `Sleuth` per question. Each pass starts
fresh workers (nothing remembered from an earlier pass), times one warm-up question on each
(not counted: imports, the reader's model), then asks each question of both, alternating which
goes first. Wall time and each worker's CPU time are both reported: CPU time barely moves when
other work shares the machine, wall time does.

    python -m bench.turns --baseline-src /tmp/old/src [--questions 25] [--passes 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .speed import fmt_ms, p

REPO = Path(__file__).resolve().parents[1]
WARM_UP = "who wrote the novel moby dick"


@dataclass(frozen=True, slots=True)
class Run:
    ms: float
    error: str | None = None
    cpu_ms: float = 0.0  # the worker's CPU time (all its threads): barely moves under other load


Ask = Callable[[str], Run]


@dataclass(slots=True)
class Turns:
    """Each side's runs, in question order (passes one after another)."""

    after: list[Run] = field(default_factory=list)
    before: list[Run] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # each worker's sleuth and reader

    def ms(self, side: Sequence[Run]) -> list[float]:
        return [r.ms for r in side]

    def cpu_ms(self, side: Sequence[Run]) -> list[float]:
        return [r.cpu_ms for r in side]

    def to_json(self) -> dict[str, list[float]]:
        return {
            "this_ms": self.ms(self.after),
            "before_ms": self.ms(self.before),
            "this_cpu_ms": self.cpu_ms(self.after),
            "before_cpu_ms": self.cpu_ms(self.before),
        }

    def line(self) -> str:
        after, before = self.ms(self.after), self.ms(self.before)
        a50, b50 = p(after, 50), p(before, 50)
        cpu_a50, cpu_b50 = p(self.cpu_ms(self.after), 50), p(self.cpu_ms(self.before), 50)
        return (
            f"before (baseline src): p50 {fmt_ms(b50)}, p90 {fmt_ms(p(before, 90))}, "
            f"CPU p50 {fmt_ms(cpu_b50)}, n {len(before)}, errors {_errors(self.before)}; "
            f"this: p50 {fmt_ms(a50)}, p90 {fmt_ms(p(after, 90))}, CPU p50 {fmt_ms(cpu_a50)}, "
            f"n {len(after)}, errors {_errors(self.after)}; "
            f"this ÷ before (p50): {_ratio(a50, b50)}, CPU {_ratio(cpu_a50, cpu_b50)}"
        )


def take_turns(after: Ask, before: Ask, questions: Sequence[str], into: Turns) -> Turns:
    """One warm-up each (not counted), then every question on both, alternating who goes first
    so neither side always runs on a machine the other has just warmed (or loaded)."""
    after(WARM_UP)
    before(WARM_UP)
    for i, question in enumerate(questions):
        if i % 2 == 0:
            into.after.append(after(question))
            into.before.append(before(question))
        else:
            into.before.append(before(question))
            into.after.append(after(question))
    return into


class Worker:
    """A `--worker` process answering questions with the sleuth under `src`."""

    def __init__(self, src: Path, env: Mapping[str, str]) -> None:
        path = os.pathsep.join([str(src.resolve()), str(REPO)])
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "bench.turns", "--worker"],
            env={**env, "PYTHONPATH": path},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.note = self._line()["note"]

    def __call__(self, question: str) -> Run:
        assert self._proc.stdin is not None
        self._proc.stdin.write(question.replace("\n", " ") + "\n")
        self._proc.stdin.flush()
        got = self._line()
        return Run(float(got["ms"]), got["error"], float(got["cpu_ms"]))

    def _line(self) -> dict[str, Any]:
        assert self._proc.stdout is not None
        text = self._proc.stdout.readline()
        if not text:
            raise RuntimeError(f"bench.turns worker exited with {self._proc.wait()}")
        data: dict[str, Any] = json.loads(text)
        return data

    def stop(self) -> None:
        assert self._proc.stdin is not None
        self._proc.stdin.close()
        self._proc.wait(timeout=30)


def quick_turns(
    env: Mapping[str, str], questions: Sequence[str], baseline: Path, passes: int = 1
) -> Turns:
    """`passes` passes over `questions`, this checkout's src against `baseline` (a src/)."""
    turns = Turns()
    for _ in range(passes):
        with tempfile.TemporaryDirectory(prefix="sleuth-bench-turns-") as home:
            after = Worker(REPO / "src", {**env, "SLEUTH_HOME": home})
            before = Worker(baseline, {**env, "SLEUTH_HOME": home})
            try:
                take_turns(after, before, questions, turns)
                turns.notes = [f"this: {after.note}", f"before: {before.note}"]
            finally:
                after.stop()
                before.stop()
    return turns


def worker() -> int:
    """Answer each question on stdin, one a line; print its latency as a JSON line. Pages of
    the offline web are small enough to be parsed in this process's threads (not in sandbox
    worker processes), so its CPU time is the run's own."""
    import sleuth
    from sleuth.evaluate.questions import Question
    from sleuth.evaluate.runner import SleuthArm
    from sleuth.settings import Settings

    settings = Settings(
        search="searxng", search_fallback="none", no_cache=True, env=dict(os.environ)
    )
    arm = SleuthArm(settings)
    print(json.dumps({"note": f"{sleuth.__file__}, reader {_reader()}"}), flush=True)
    for line in sys.stdin:
        cpu = time.process_time()
        observation = asyncio.run(arm(Question("turn", line.strip(), ())))
        cpu_ms = (time.process_time() - cpu) * 1000
        got = {"ms": observation.latency_ms, "error": observation.error, "cpu_ms": cpu_ms}
        print(json.dumps(got), flush=True)
    return 0


def _reader() -> str:
    try:
        from sleuth.pipeline.reader import reader
    except ImportError:  # a checkout from before the learned reader
        return "none"
    return reader().name


def _ratio(a: float | None, b: float | None) -> str:
    return "n/a" if a is None or not b else f"{a / b:.2f}"


def _errors(runs: Sequence[Run]) -> int:
    return sum(r.error is not None for r in runs)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.turns", description=__doc__)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--baseline-src", type=Path)
    ap.add_argument("--questions", type=int, default=25, help="NQ questions (default 25)")
    ap.add_argument("--passes", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    args = ap.parse_args(argv)
    if args.worker:
        return worker()
    if args.baseline_src is None:
        ap.error("--baseline-src is required")
    return _measure(args)


def _measure(args: argparse.Namespace) -> int:
    from sleuth.evaluate.corpus_web import load_docs

    from .run import pick_questions
    from .web import OfflineWeb

    corpus = args.shared / "bench" / "docs.jsonl"
    picked = pick_questions(args.shared, load_docs(corpus), args.questions, args.seed)
    nq = [q.question for q in picked if q.dataset == "NQ"][: args.questions]
    web = OfflineWeb(args.shared / "tools" / "offline_web.py", corpus).wait_ready()
    try:
        turns = quick_turns({**os.environ, **web.env()}, nq, args.baseline_src, args.passes)
    finally:
        web.stop()
    print("\n".join([*turns.notes, turns.line()]))
    print(json.dumps(turns.to_json()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
