"""Service figures (issues 13 and 26): `sleuth serve` on the offline web, driven from outside
its process by `wrk` (`bench/load.py`), every rate beside `/healthz`'s measured in the same run.

- one kind of request at a time, 50 connections: `/healthz`, `whoami`, usage, run listings,
  a plain search, a research answer from the cache (plain, as a stream, and with an
  `Idempotency-Key` as the `xdive` SDK sends it) — requests/s, p50/p99, statuses, and the rate
  as a ratio to `/healthz`'s;
- a fresh quick run through the server against the library in process (`Sleuth.ask`), one run
  at a time, the two taking turns on the same questions (which goes first alternates), so a
  change in the machine's load reaches both alike; and the CLI (a process per question);
- the mix: 200 connections for a minute, every kind at once (fresh runs included), with each
  kind's p50/p99 and status counts — cheap requests must not wait behind runs.

Figures only: a bench never fails on a number. Without `wrk` (Debian's package) the section
says so and measures nothing.

    python -m bench.service [--questions 21] [--seconds 10] [--mix-seconds 60]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from sleuth.evaluate.questions import Question

from . import load
from .load import Measured, Target

CLIENTS = 50
MIX_CLIENTS = 200
RUN_SLOTS = 4
SEARCHES = 5  # distinct plain searches the search rows take in turn
SETTLE_S = 3.0  # a pause before each kind is measured alone
SERVE_FLAGS = ("--search=searxng", "--search-fallback=none", "--no-cache")  # as the CLI arm


@dataclass(frozen=True, slots=True)
class ServiceFigures:
    kinds: list[Measured]  # one kind at a time, healthz first and last
    mix: list[Measured]  # every kind at once
    fresh_p50_ms: float
    cli_p50_ms: float | None
    library_p50_ms: float
    fresh_cli_p50_ms: float  # the server's fresh runs on the CLI's questions

    @property
    def healthz_per_s(self) -> float:
        rates = [m.per_s for m in self.kinds if m.label == "healthz"]
        return statistics.mean(rates) if rates else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "kinds": [m.to_json() for m in self.kinds],
            "mix": [m.to_json() for m in self.mix],
            "healthz_per_s": round(self.healthz_per_s, 1),
            "fresh_quick_p50_ms": self.fresh_p50_ms,
            "cli_quick_p50_ms": self.cli_p50_ms,
            "library_quick_p50_ms": self.library_p50_ms,
            "fresh_quick_p50_ms_on_cli_questions": self.fresh_cli_p50_ms,
            "load_average": os.getloadavg(),
        }


class Served:
    """`sleuth keys create` then `sleuth serve` as processes, on a fresh SLEUTH_HOME."""

    def __init__(self, web_env: Mapping[str, str]) -> None:
        self.home = tempfile.mkdtemp(prefix="sleuth-bench-serve-")
        self.env = {**os.environ, **web_env, "SLEUTH_HOME": self.home}
        sleuth = str(Path(sys.executable).with_name("sleuth"))
        made = subprocess.run([sleuth, "keys", "create", "--org", "bench"], env=self.env,
                              capture_output=True, text=True, check=True)  # fmt: skip
        self.key = made.stdout.strip()
        self.port = _free_port()
        command = [sleuth, "serve", f"--port={self.port}", f"--run-slots={RUN_SLOTS}",
                   "--org-runs=0", *SERVE_FLAGS]  # fmt: skip
        self.proc = subprocess.Popen(command, env=self.env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)  # fmt: skip
        self.url = f"http://127.0.0.1:{self.port}/api/orgs/bench/research"
        _wait(f"http://127.0.0.1:{self.port}/healthz", self.proc)

    def cpu_s(self) -> float:
        """The server's CPU time so far (user + system): steadier than wall time when other
        work shares the machine."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=60)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(url: str, proc: subprocess.Popen[bytes]) -> None:
    for _ in range(600):
        if proc.poll() is not None:
            raise RuntimeError("sleuth serve exited")
        try:
            if httpx.get(url).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise RuntimeError("sleuth serve did not start")


def targets(served: Served, question: str, searches: Sequence[str]) -> dict[str, Target]:
    """Each kind of request the service answers, as wrk sends it."""
    key = {"X-API-Key": served.key}
    post = {**key, "Content-Type": "application/json"}
    body = json.dumps({"query": question})
    base = f"http://127.0.0.1:{served.port}"
    api = f"{base}/api/orgs/bench"
    return {
        "healthz": Target("healthz", f"{base}/healthz"),
        "whoami": Target("whoami", f"{base}/api/whoami", headers=key),
        "usage": Target("usage", f"{api}/usage", headers=key),
        "runs": Target("run listing", f"{api}/runs?limit=20", headers=key),
        "search": Target("plain search (a few queries over and over: the search cache)",
                         f"{api}/search", "POST", post,
                         tuple(json.dumps({"query": q, "limit": 5}) for q in searches)),
        "search_afresh": Target("plain search, no_cache (the backend each time)",
                                f"{api}/search", "POST", post,
                                tuple(json.dumps({"query": q, "limit": 5, "no_cache": True})
                                      for q in searches)),
        "cached": Target("cached research", f"{api}/research", "POST", post, (body,)),
        "stream": Target("cached research, streamed", f"{api}/research", "POST",
                         {**post, "Accept": "text/event-stream"}, (body,)),
        "idempotent": Target("cached research, Idempotency-Key (same key: the replay)",
                             f"{api}/research", "POST", {**post, "Idempotency-Key": "bench-1"},
                             (body,)),
    }  # fmt: skip


def fresh(served: Served, questions: Sequence[Question]) -> Target:
    """Fresh quick runs on distinct questions, the cache refused (each request is a run)."""
    bodies = tuple(json.dumps({"query": q.question, "no_cache": True}) for q in questions)
    post = {"X-API-Key": served.key, "Content-Type": "application/json"}
    url = f"http://127.0.0.1:{served.port}/api/orgs/bench/research"
    return Target("fresh quick run", url, "POST", post, bodies)


def measure_service(
    web_env: Mapping[str, str],
    questions: Sequence[Question],
    sample: Sequence[Question],
    *,
    seconds: float = 10.0,
    mix_seconds: float = 60.0,
    cli_p50_ms: float | None = None,
) -> ServiceFigures | None:
    """The figures; fresh runs are timed on `questions` after the first, against the library,
    and `sample` is what the CLI was timed on. None when wrk is not installed."""
    if not load.available():
        return None
    served = Served(web_env)
    try:
        warm = questions[0].question
        httpx.post(served.url, json={"query": warm}, headers={"X-API-Key": served.key},
                   timeout=120)  # fmt: skip
        kinds = targets(served, warm, [q.question for q in questions[-SEARCHES:]])
        order = ("healthz", "whoami", "usage", "runs", "search", "cached", "stream",
                 "idempotent", "search_afresh", "healthz")  # fmt: skip
        alone = [_alone(kinds[name], seconds) for name in order]
        paired = asyncio.run(_fresh_pairs(served, web_env, questions[1:]))
        mix = load.together(_mix(kinds, fresh(served, questions[1:])), mix_seconds)
    finally:
        served.stop()
    on_sample = [paired[q.question][0] for q in sample if q.question in paired]
    return ServiceFigures(
        alone, mix, statistics.median(s for s, _ in paired.values()), cli_p50_ms,
        statistics.median(lib for _, lib in paired.values()),
        statistics.median(on_sample) if on_sample else 0.0,
    )  # fmt: skip


def _alone(target: Target, seconds: float) -> Measured:
    """One kind at a time, after the work the previous kind left queued (a backend still
    answering its last requests) has drained."""
    time.sleep(SETTLE_S)
    return load.measure(target, CLIENTS, seconds)


def _mix(kinds: Mapping[str, Target], runs: Target) -> list[tuple[Target, int]]:
    """200 connections: what a busy team's service sees (most of it cheap)."""
    return [(runs if name == "fresh" else kinds[name], n) for name, n in _mix_shares()]


async def _fresh_pairs(
    served: Served, web_env: Mapping[str, str], questions: Sequence[Question]
) -> dict[str, tuple[float, float]]:
    """Each question as a fresh quick run through the server and through the library in this
    process, one after the other, the first of the two alternating (ms: server, library)."""
    from sleuth.app.application import Sleuth
    from sleuth.evaluate.runner import proxy_environment
    from sleuth.settings import Settings

    async def timed(ask: Any) -> float:
        started = time.perf_counter()
        await ask
        return (time.perf_counter() - started) * 1000

    out: dict[str, tuple[float, float]] = {}
    with proxy_environment(dict(web_env)), tempfile.TemporaryDirectory() as home:
        env = {**os.environ, **web_env, "SLEUTH_HOME": home}
        settings = Settings(search="searxng", search_fallback="none", no_cache=True, env=env)
        async with Sleuth(settings) as app, httpx.AsyncClient(timeout=300) as http:
            for i, q in enumerate(questions):

                def server(q: Question = q) -> Any:
                    return http.post(served.url, json={"query": q.question, "no_cache": True},
                                     headers={"X-API-Key": served.key})  # fmt: skip

                if i % 2:
                    lib, srv = await timed(app.ask(q.question)), await timed(server())
                else:
                    srv, lib = await timed(server()), await timed(app.ask(q.question))
                out[q.question] = (srv, lib)
    return out


def service_section(figures: ServiceFigures | None) -> str:
    if figures is None:
        return "`wrk` is not installed (Debian's package `wrk`): nothing measured.\n"
    base = figures.healthz_per_s
    lines = [
        f"`sleuth serve` on loopback (`--run-slots {RUN_SLOTS}`, {' '.join(SERVE_FLAGS)}), "
        f"driven by `wrk` (1 thread, {CLIENTS} connections) from its own process; ratio: the "
        f"rate over `/healthz`'s in the same run ({base:.0f}/s, the mean of its two rows).\n",
        "| request | per second | ratio to /healthz | p50 ms | p99 ms | statuses |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for m in figures.kinds:
        ratio = m.per_s / base if base else 0.0
        lines.append(f"| {m.label} | {m.per_s:.0f} | {ratio:.2f} | {m.p50_ms:.1f} | "
                     f"{m.p99_ms:.1f} | {_statuses(m)} |")  # fmt: skip
    lines += ["", f"The mix: {MIX_CLIENTS} connections at once, each kind its own `wrk`:\n",
              "| request | connections | requests | p50 ms | p99 ms | statuses |",
              "| --- | ---: | ---: | ---: | ---: | --- |"]  # fmt: skip
    for m, (_, n) in zip(figures.mix, _mix_shares(), strict=True):
        lines.append(f"| {m.label} | {n} | {m.requests} | {m.p50_ms:.1f} | {m.p99_ms:.1f} | "
                     f"{_statuses(m)} |")  # fmt: skip
    lines.append("")
    lines += _fresh_lines(figures)
    load_avg = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    lines.append(f"- load average at the end (1, 5, 15 min): {load_avg} on {os.cpu_count()} cores")
    return "\n".join(lines) + "\n"


def _mix_shares() -> list[tuple[str, int]]:
    """How the mix's connections are shared between the kinds of request."""
    shares = [("cached", 60), ("whoami", 20), ("usage", 10), ("runs", 20), ("search", 40),
              ("stream", 20)]  # fmt: skip
    return [*shares, ("fresh", MIX_CLIENTS - sum(n for _, n in shares))]


def _statuses(m: Measured) -> str:
    parts = [f"{code}: {n}" for code, n in sorted(m.statuses.items())]
    if m.errors:
        parts.append(f"no answer: {m.errors}")
    return ", ".join(parts)


def _fresh_lines(figures: ServiceFigures) -> list[str]:
    server, library = figures.fresh_p50_ms, figures.library_p50_ms
    out = [
        f"- a fresh quick run, the server and the library in process (`Sleuth.ask`) taking turns "
        f"on the same questions: server p50 {server:.0f} ms, library p50 {library:.0f} ms; "
        f"server ÷ library {server / library if library else 0.0:.2f}"
    ]
    if figures.cli_p50_ms and figures.fresh_cli_p50_ms:
        ratio = figures.fresh_cli_p50_ms / figures.cli_p50_ms
        out.append(f"- the CLI (`sleuth ask`, a process per question): p50 "
                   f"{figures.cli_p50_ms:.0f} ms; the server on those questions "
                   f"{figures.fresh_cli_p50_ms:.0f} ms, server ÷ CLI {ratio:.2f}")  # fmt: skip
    return out


def main(argv: Sequence[str] | None = None) -> int:
    from bench.run import pick_questions
    from bench.speed import cli_runs
    from bench.web import OfflineWeb
    from sleuth.evaluate.corpus_web import load_docs

    ap = argparse.ArgumentParser(prog="python -m bench.service", description=__doc__)
    ap.add_argument("--questions", type=int, default=21)
    ap.add_argument("--seconds", type=float, default=10.0, help="Each kind alone.")
    ap.add_argument("--mix-seconds", type=float, default=60.0, help="The 200-connection mix.")
    ap.add_argument("--cli-questions", type=int, default=5)
    ap.add_argument("--shared", type=Path, default=Path(__file__).parents[2] / "shared")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = ap.parse_args(argv)
    docs_path = args.shared / "bench" / "docs.jsonl"
    questions = [q for q in pick_questions(args.shared, load_docs(docs_path), 30, 0)
                 if q.dataset == "NQ"][: args.questions]  # fmt: skip
    web = OfflineWeb(args.shared / "tools" / "offline_web.py", docs_path).wait_ready()
    sample = questions[1 : 1 + args.cli_questions]
    try:
        with tempfile.TemporaryDirectory(prefix="sleuth-bench-cli-") as home:
            env = {**os.environ, **web.env(), "SLEUTH_HOME": home}
            sleuth = Path(sys.executable).with_name("sleuth")
            cli = cli_runs(sleuth, sample, env)
        cli_p50 = statistics.median(c.seconds for c in cli) * 1000
        figures = measure_service(
            web.env(), questions, sample, seconds=args.seconds, mix_seconds=args.mix_seconds,
            cli_p50_ms=cli_p50,
        )  # fmt: skip
    finally:
        web.stop()
    text = f"# Service bench — {datetime.now(UTC):%Y-%m-%d}\n\n{service_section(figures)}"
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"{datetime.now(UTC):%Y-%m-%d}-service.md"
    path.write_text(text, encoding="utf-8")
    if figures is not None:
        path.with_suffix(".json").write_text(json.dumps(figures.to_json(), indent=1) + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
