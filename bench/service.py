"""Service figures (issue 13): `sleuth serve` on the offline web, driven over loopback HTTP.

- cached answers at 50 concurrent clients: requests/s and latency p50/p99 for a research
  request answered from the result cache (plain, and with an `Idempotency-Key` on every
  request as the `xdive` SDK sends);
- fresh quick runs: distinct questions, `no_cache`, one client at a time (latency p50) and
  `--run-slots` clients at once (runs/s);
- beside them the CLI's own quick p50 (`sleuth ask`, a process per question) and the library's
  in-process p50 for the same questions, and the server's per-run overhead as ratios to both.

The clients run in this process on the same two cores as the server, so the cached figures
are a floor for what the server alone could do. Figures only: a bench never fails on a number.

    python -m bench.service [--questions 20] [--requests 2000] [--out bench/results]
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
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from sleuth.evaluate.questions import Question

CLIENTS = 50
RUN_SLOTS = 4
NO_RESPONSE = 0  # the status counted for a request that got no response (a transport error)
SERVE_FLAGS = ("--search=searxng", "--search-fallback=none", "--no-cache")  # as the CLI arm


@dataclass(frozen=True, slots=True)
class Load:
    label: str
    seconds: float
    latencies_ms: list[float]
    statuses: dict[int, int] = field(default_factory=dict)
    server_cpu_s: float = 0.0  # the server process's user + system time during the load

    @property
    def cpu_ms_per_request(self) -> float:
        return 1000 * self.server_cpu_s / len(self.latencies_ms) if self.latencies_ms else 0.0

    @property
    def per_s(self) -> float:
        return len(self.latencies_ms) / self.seconds if self.seconds > 0 else 0.0

    def p(self, q: float) -> float:
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


@dataclass(frozen=True, slots=True)
class ServiceFigures:
    cached: list[Load]
    fresh_one: Load
    fresh_many: Load
    cli_p50_ms: float | None
    library_p50_ms: float | None

    def to_json(self) -> dict[str, Any]:
        def row(load: Load) -> dict[str, Any]:
            return {"label": load.label, "per_s": round(load.per_s, 2), "p50_ms": load.p(0.5),
                    "p99_ms": load.p(0.99), "n": len(load.latencies_ms),
                    "statuses": load.statuses,
                    "server_cpu_ms_per_request": round(load.cpu_ms_per_request, 2)}  # fmt: skip

        return {
            "cached": [row(c) for c in self.cached],
            "fresh_sequential": row(self.fresh_one),
            "fresh_concurrent": row(self.fresh_many),
            "cli_quick_p50_ms": self.cli_p50_ms,
            "library_quick_p50_ms": self.library_p50_ms,
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


async def _drive(
    served: Served, bodies: Sequence[dict[str, Any]], clients: int, idempotent: bool, label: str
) -> Load:
    """Send `bodies` from `clients` concurrent connections; latency of each request."""
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    for body in bodies:
        queue.put_nowait(body)
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)

    async with httpx.AsyncClient(limits=limits, timeout=300) as http:

        async def client() -> None:
            while not queue.empty():
                body = queue.get_nowait()
                headers = {"X-API-Key": served.key}
                if idempotent:
                    headers["Idempotency-Key"] = uuid.uuid4().hex
                started = time.perf_counter()
                try:
                    status = (await http.post(served.url, json=body, headers=headers)).status_code
                except httpx.TransportError:
                    status = NO_RESPONSE  # counted, not fatal: a bench reports, never fails
                latencies.append((time.perf_counter() - started) * 1000)
                statuses[status] = statuses.get(status, 0) + 1

        cpu, started = served.cpu_s(), time.perf_counter()
        await asyncio.gather(*(client() for _ in range(clients)))
        seconds, cpu = time.perf_counter() - started, served.cpu_s() - cpu
    return Load(label, seconds, latencies, statuses, cpu)


def measure_service(
    web_env: Mapping[str, str],
    questions: Sequence[Question],
    requests: int = 2000,
    cli_p50_ms: float | None = None,
    library_p50_ms: float | None = None,
) -> ServiceFigures:
    served = Served(web_env)
    try:
        warm = {"query": questions[0].question}
        httpx.post(served.url, json=warm, headers={"X-API-Key": served.key}, timeout=120)
        cached = [
            asyncio.run(_drive(served, [warm] * requests, CLIENTS, False, "cached, plain")),
            asyncio.run(
                _drive(
                    served,
                    [warm] * requests,
                    CLIENTS,
                    True,
                    "cached, Idempotency-Key on each (as the SDK)",
                )
            ),
        ]
        half = len(questions) // 2
        one = [{"query": q.question, "no_cache": True} for q in questions[1 : 1 + half]]
        many = [{"query": q.question, "no_cache": True} for q in questions[1 + half :]]
        fresh_one = asyncio.run(_drive(served, one, 1, False, "fresh quick runs, 1 client"))
        fresh_many = asyncio.run(
            _drive(served, many, RUN_SLOTS, False, f"fresh quick runs, {RUN_SLOTS} clients")
        )
    finally:
        served.stop()
    return ServiceFigures(cached, fresh_one, fresh_many, cli_p50_ms, library_p50_ms)


def service_section(figures: ServiceFigures) -> str:
    lines = [
        f"`sleuth serve` on loopback (`--run-slots {RUN_SLOTS}`, {' '.join(SERVE_FLAGS)}); "
        f"clients in the bench process on the same cores; status {NO_RESPONSE}: no response "
        "(a transport error).\n",
        "| load | requests | per second | p50 ms | p99 ms | server CPU ms/request | statuses |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for row in (*figures.cached, figures.fresh_one, figures.fresh_many):
        clients = CLIENTS if row in figures.cached else None
        name = f"{row.label}, {clients} clients" if clients else row.label
        lines.append(
            f"| {name} | {len(row.latencies_ms)} | {row.per_s:.1f} | {row.p(0.5):.0f} | "
            f"{row.p(0.99):.0f} | {row.cpu_ms_per_request:.1f} | "
            f"{dict(sorted(row.statuses.items()))} |"
        )
    server_p50 = figures.fresh_one.p(0.5)
    lines.append("")
    if figures.cli_p50_ms:
        ratio = server_p50 / figures.cli_p50_ms
        lines.append(
            f"- a fresh quick run through the server, p50 {server_p50:.0f} ms, against the CLI's "
            f"own quick p50 {figures.cli_p50_ms:.0f} ms (a process per question): "
            f"ratio {ratio:.2f}"
        )
    if figures.library_p50_ms:
        ratio = server_p50 / figures.library_p50_ms
        lines.append(
            f"- against the library in-process (`Sleuth.ask`, same questions' sample) p50 "
            f"{figures.library_p50_ms:.0f} ms: ratio {ratio:.2f} (HTTP, auth, admission, "
            "metering, cache write and saving per run)"
        )
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    lines.append(
        f"- machine load average at the end (1, 5, 15 min): {load} on {os.cpu_count()} cores"
    )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    from bench.run import pick_questions
    from bench.speed import cli_runs
    from bench.web import OfflineWeb
    from sleuth.evaluate.corpus_web import load_docs

    ap = argparse.ArgumentParser(prog="python -m bench.service", description=__doc__)
    ap.add_argument("--questions", type=int, default=21)
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--cli-questions", type=int, default=5)
    ap.add_argument("--shared", type=Path, default=Path(__file__).parents[2] / "shared")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = ap.parse_args(argv)
    docs_path = args.shared / "bench" / "docs.jsonl"
    questions = [q for q in pick_questions(args.shared, load_docs(docs_path), 30, 0)
                 if q.dataset == "NQ"][: args.questions]  # fmt: skip
    web = OfflineWeb(args.shared / "tools" / "offline_web.py", docs_path).wait_ready()
    try:
        with tempfile.TemporaryDirectory(prefix="sleuth-bench-cli-") as home:
            env = {**os.environ, **web.env(), "SLEUTH_HOME": home}
            sleuth = Path(sys.executable).with_name("sleuth")
            cli = cli_runs(sleuth, questions[1 : 1 + args.cli_questions], env)
        cli_p50 = statistics.median(c.seconds for c in cli) * 1000
        library_p50 = _library_p50(web.env(), questions[1 : 1 + args.cli_questions])
        figures = measure_service(web.env(), questions, args.requests, cli_p50, library_p50)
    finally:
        web.stop()
    text = f"# Service bench — {datetime.now(UTC):%Y-%m-%d}\n\n{service_section(figures)}"
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"{datetime.now(UTC):%Y-%m-%d}-service.md"
    path.write_text(text, encoding="utf-8")
    path.with_suffix(".json").write_text(json.dumps(figures.to_json(), indent=1) + "\n")
    print(text)
    return 0


def _library_p50(web_env: Mapping[str, str], questions: Sequence[Question]) -> float:
    """The same questions through `Sleuth.ask` in this process (no HTTP, no process start)."""
    from sleuth.app.application import Sleuth
    from sleuth.evaluate.runner import proxy_environment
    from sleuth.settings import Settings

    async def go(home: str) -> list[float]:
        env = {**os.environ, **web_env, "SLEUTH_HOME": home}
        settings = Settings(search="searxng", search_fallback="none", no_cache=True, env=env)
        out = []
        async with Sleuth(settings) as app:
            for q in questions:
                started = time.perf_counter()
                await app.ask(q.question)
                out.append((time.perf_counter() - started) * 1000)
        return out

    with proxy_environment(dict(web_env)), tempfile.TemporaryDirectory() as home:
        return statistics.median(asyncio.run(go(home)))


if __name__ == "__main__":
    raise SystemExit(main())
