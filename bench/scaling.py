"""Scaling figures (issue 16): more processes on one PostgreSQL, on an I/O-bound offline web.

The offline web answers every page after an injected delay (and every search after a shorter
one), as the real web keeps a run waiting, so the figures show what more processes add when
the work is waiting rather than computing:

- a batch on the queue: the same questions answered by 1, 2 and 4 `sleuth worker` processes
  (each `--concurrency C`), one fresh database each; questions/min from the batch's creation to
  its last record (the database's own clock), each as a ratio to one worker;
- the service: fresh quick runs (`no_cache`) through 1 and 2 `sleuth serve` replicas on one
  database, behind nginx (`least_conn`; or pinned round-robin from the client without nginx),
  with as many clients as the replicas have run slots; runs/min as a ratio to one replica;
- the backend's cost: the same fresh runs, one at a time, on a SQLite `sleuth serve` and a
  PostgreSQL one, alternating which goes first; the medians and their difference.

PostgreSQL is a throwaway cluster on loopback (`tests/postgres.py`) with the server's default
durability (fsync on). Without the server binaries or the `queue` extra nothing is measured and
the report says why. Figures only: a bench never fails on a number.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from sleuth.fetch.http import PER_SERVER

from .render import Overhead, ScaleRow, Scaling, ratios
from .service import RUN_SLOTS, SERVE_FLAGS, Served, _free_port
from .web import OfflineWeb
from .workers import create_database, measure_workers

ORG = "bench"


@dataclass(frozen=True, slots=True)
class Options:
    questions: int = 48  # the batch each worker count answers
    service_questions: int = 32  # fresh runs sent to each replica count
    overhead_questions: int = 12  # runs on each backend, one at a time
    latency_s: float = 0.5  # added to every page
    search_delay_s: float = 0.3  # added to every search
    concurrency: int = 2  # each worker's `--concurrency`
    workers: tuple[int, ...] = (1, 2, 4)
    replicas: tuple[int, ...] = (1, 2)
    one_wide: bool = True  # also one worker running as many questions at once as all of them


def unavailable() -> str | None:
    """Why the section cannot run here, or None."""
    from tests.postgres import bin_dir

    try:
        import procrastinate  # noqa: F401
        import psycopg  # noqa: F401
    except ImportError:
        return "needs the queue extra (psycopg, procrastinate): pip install -e '.[dev]'"
    if bin_dir() is None:
        return "no PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb missing)"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "running as root needs runuser to start PostgreSQL as the postgres user"
    return None


def measure_scaling(
    tool: Path, corpus: Path, questions: Sequence[str], options: Options, log: Any = print
) -> Scaling:
    """Every scaling figure, on an offline web of its own and a throwaway PostgreSQL."""
    reason = unavailable()
    if reason:
        return Scaling([], [], None, [], skipped=reason)
    from tests.postgres import Cluster, bin_dir

    found = bin_dir()
    assert found is not None
    texts = list(dict.fromkeys(questions))
    needed = max(options.questions, options.service_questions, options.overhead_questions)
    spare = max(max(options.workers) * options.concurrency, max(options.replicas) * RUN_SLOTS)
    if len(texts) < needed + spare:
        return Scaling([], [], None, [], skipped=f"needs {needed + spare} distinct questions")
    web_args = ("--latency", str(options.latency_s), "--search-delay", str(options.search_delay_s))
    web = OfflineWeb(tool, corpus, web_args)
    cluster = Cluster(found, durable=True)
    load_before = os.getloadavg()
    started = False
    try:
        log("scaling: starting an offline web with injected latency and a PostgreSQL cluster")
        web.wait_ready()
        cluster.start()
        started = True
        env = web.env()
        workers = _worker_rows(cluster.url, env, texts, options, log)
        nginx = _has_nginx()
        replicas = [measure_replicas(cluster.url, env, texts, n, options, nginx, log)
                    for n in options.replicas]  # fmt: skip
        log("scaling: PostgreSQL against SQLite, one run at a time")
        overhead = measure_overhead(cluster.url, env, texts[: options.overhead_questions])
    finally:
        web.stop()
        if started:
            cluster.stop()
    setup = _setup(options, nginx, found.parent.name, load_before, os.getloadavg())
    return Scaling(workers, replicas, overhead, setup)


def _worker_rows(
    admin_url: str, env: Mapping[str, str], texts: Sequence[str], options: Options, log: Any
) -> list[ScaleRow]:
    """A row per worker count, then (`one_wide`) one worker running as many questions at
    once as the most workers together."""
    counts = [(n, options.concurrency, "") for n in options.workers]
    if options.one_wide:
        wide = max(options.workers) * options.concurrency
        counts.append((1, wide, f"`--concurrency {wide}`"))
    rows = []
    for n, each, note in counts:
        log(f"scaling: {n} worker(s) at concurrency {each}, {options.questions} questions")
        rows.append(
            measure_workers(admin_url, env, texts, n, each, questions=options.questions, note=note)
        )
    return rows


def _setup(
    options: Options,
    nginx: bool,
    version: str,
    before: tuple[float, float, float],
    after: tuple[float, float, float],
) -> list[str]:
    balancer = (
        "nginx (`least_conn`) in front" if nginx else "no nginx: each client pinned to a replica"
    )
    most = max(options.workers)
    wide = (
        f"; the last row is one worker at `--concurrency {most * options.concurrency}`, as many "
        f"questions at once as {most} workers together"
        if options.one_wide
        else ""
    )
    return [
        f"offline web: {options.latency_s * 1000:.0f} ms added to every page, "
        f"{options.search_delay_s * 1000:.0f} ms to every search (`offline_web.py --latency "
        f"{options.latency_s} --search-delay {options.search_delay_s}`)",
        f"workers: `sleuth worker --concurrency {options.concurrency}` each, "
        f"{' '.join(SERVE_FLAGS)}; one queued batch of {options.questions} questions per "
        "worker count, after a warm-up batch; wall = the batch's creation to its last record"
        + wide,
        f"replicas: `sleuth serve --run-slots {RUN_SLOTS}` each, {balancer}; "
        f"{RUN_SLOTS} clients per replica, each sending the next fresh question when its "
        f"answer arrives ({options.service_questions} questions per replica count)",
        f"each Sleuth process opens at most {PER_SERVER} connections at once to one server "
        "(`sleuth.fetch.http.PER_SERVER`), and on the offline web every page comes through its "
        f"proxy: one process reads at most {PER_SERVER} pages at once "
        f"({PER_SERVER / options.latency_s:.0f} pages/s at this latency), whatever its concurrency",
        f"PostgreSQL {version}: one throwaway cluster on loopback, server defaults (fsync on); "
        "a fresh database per configuration",
        f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}; load average "
        f"(1, 5, 15 min) {_load(before)} before and {_load(after)} after (other work shares it)",
    ]


def _load(values: tuple[float, float, float]) -> str:
    return ", ".join(f"{v:.1f}" for v in values)


# -- the service ---------------------------------------------------------------------------------


def measure_replicas(
    admin_url: str,
    web_env: Mapping[str, str],
    texts: Sequence[str],
    n: int,
    options: Options,
    nginx: bool,
    log: Any = print,
) -> ScaleRow:
    """`options.service_questions` fresh runs through `n` replicas on a fresh database."""
    log(f"scaling: {n} replica(s), {options.service_questions} fresh runs")
    url = create_database(admin_url, f"bench_replicas_{n}")
    env = {**web_env, "SLEUTH_DATABASE_URL": url}
    served: list[Served] = []
    try:
        for _ in range(n):
            served.append(Served(env))
        with _front(nginx, [s.port for s in served]) as bases:
            clients = RUN_SLOTS * n
            key = served[0].key
            asyncio.run(_fresh_load(bases, key, texts[-clients:], clients))
            cpu = sum(s.cpu_s() for s in served)
            load = asyncio.run(_fresh_load(bases, key, texts[: options.service_questions], clients))
            cpu = sum(s.cpu_s() for s in served) - cpu
    finally:
        for s in served:
            s.stop()
    seconds, latencies, retried, failed = load
    return ScaleRow(n, len(latencies), seconds, failed, latencies, cpu, retried)


def _has_nginx() -> bool:
    from tests.nginx import NGINX

    return NGINX is not None


@contextmanager
def _front(nginx: bool, ports: Sequence[int]) -> Iterator[list[str]]:
    """The base URLs clients use: nginx's one, or each replica's (clients pinned in turn)."""
    if not nginx:
        yield [f"http://127.0.0.1:{port}" for port in ports]
        return
    from tests.nginx import front

    with front(ports, _free_port(), least_conn=True, access_log=False) as base:
        yield [base]


async def _fresh_load(
    bases: Sequence[str], key: str, texts: Sequence[str], clients: int
) -> tuple[float, list[float], int, int]:
    """Fresh runs of `texts` from `clients` at once, 503s retried after Retry-After:
    (seconds, each answer's ms from first send, 503s retried, answers other than 200)."""
    queue: asyncio.Queue[str] = asyncio.Queue()
    for text in texts:
        queue.put_nowait(text)
    latencies: list[float] = []
    counts = {"retried": 0, "failed": 0}
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)

    async def client(http: httpx.AsyncClient, base: str) -> None:
        url = f"{base}/api/orgs/{ORG}/research"
        while not queue.empty():
            body = {"query": queue.get_nowait(), "no_cache": True}
            started = time.perf_counter()
            status = await _post_retrying(http, url, body, key, counts)
            latencies.append((time.perf_counter() - started) * 1000)
            counts["failed"] += status != 200

    async with httpx.AsyncClient(limits=limits, timeout=300) as http:
        started = time.perf_counter()
        await asyncio.gather(*(client(http, bases[i % len(bases)]) for i in range(clients)))
        seconds = time.perf_counter() - started
    return seconds, latencies, counts["retried"], counts["failed"]


async def _post_retrying(
    http: httpx.AsyncClient, url: str, body: dict[str, Any], key: str, counts: dict[str, int]
) -> int:
    """POST until the answer is not 503 (waiting Retry-After, as the SDK does): its status,
    0 when the connection failed."""
    while True:
        try:
            response = await http.post(url, json=body, headers={"X-API-Key": key})
        except httpx.TransportError:
            return 0
        if response.status_code != 503:
            return response.status_code
        counts["retried"] += 1
        await asyncio.sleep(float(response.headers.get("Retry-After", "1")))


# -- PostgreSQL against SQLite -------------------------------------------------------------------


def measure_overhead(admin_url: str, web_env: Mapping[str, str], texts: Sequence[str]) -> Overhead:
    """The same fresh runs, one at a time, on a SQLite server and a PostgreSQL one."""
    url = create_database(admin_url, "bench_overhead")
    lite = Served(web_env)
    try:
        pg = Served({**web_env, "SLEUTH_DATABASE_URL": url})
    except BaseException:
        lite.stop()
        raise
    times: dict[str, list[float]] = {"lite": [], "pg": []}
    try:
        with httpx.Client(timeout=300) as http:
            for server in (lite, pg):  # warm-up: first-run imports and connections
                _timed(http, server, texts[-1])
            for i, text in enumerate(texts):
                order = (("lite", lite), ("pg", pg)) if i % 2 == 0 else (("pg", pg), ("lite", lite))
                for name, server in order:
                    times[name].append(_timed(http, server, text))
    finally:
        lite.stop()
        pg.stop()
    return Overhead(times["lite"], times["pg"])


def _timed(http: httpx.Client, server: Served, text: str) -> float:
    started = time.perf_counter()
    response = http.post(server.url, json={"query": text, "no_cache": True},
                         headers={"X-API-Key": server.key})  # fmt: skip
    response.raise_for_status()
    return (time.perf_counter() - started) * 1000


def to_json(figures: Scaling) -> dict[str, Any]:
    def row(r: ScaleRow, ratio: float | None) -> dict[str, Any]:
        return {"processes": r.processes, "questions": r.questions,
                "seconds": round(r.seconds, 2), "per_min": round(r.per_min, 2),
                "ratio_to_one": None if ratio is None else round(ratio, 3), "failed": r.failed,
                "run_ms": [round(x) for x in r.run_ms], "cpu_s": r.cpu_s,
                "retried_503": r.retried}  # fmt: skip

    overhead = figures.overhead
    return {
        "skipped": figures.skipped,
        "setup": list(figures.setup),
        "workers": [
            row(r, x) for r, x in zip(figures.workers, ratios(figures.workers), strict=True)
        ],
        "replicas": [
            row(r, x) for r, x in zip(figures.replicas, ratios(figures.replicas), strict=True)
        ],
        "overhead": None
        if overhead is None
        else {
            "sqlite_ms": [round(x) for x in overhead.sqlite_ms],
            "postgres_ms": [round(x) for x in overhead.postgres_ms],
        },
    }


# Options a flag of `python -m bench.run` sets: (field, flag, help).
FLAGS: tuple[tuple[str, str, str], ...] = (
    ("questions", "--scaling-questions", "batch questions per worker count"),
    ("service_questions", "--scaling-service-questions", "fresh runs per replica count"),
    ("overhead_questions", "--scaling-overhead-questions",
     "runs per backend, SQLite and PostgreSQL"),
    ("latency_s", "--scaling-latency", "seconds added to every page"),
    ("search_delay_s", "--scaling-search-delay", "seconds added to every search"),
    ("concurrency", "--scaling-concurrency", "each worker's --concurrency"),
)  # fmt: skip


def options_from(args: Any) -> Options:
    """The section's options from `python -m bench.run`'s arguments."""
    return Options(**{name: getattr(args, _dest(flag)) for name, flag, _ in FLAGS})


def add_arguments(ap: Any) -> None:
    """`python -m bench.run`'s flags for this section, typed and defaulted by `Options`."""
    defaults = Options()
    for name, flag, text in FLAGS:
        default = getattr(defaults, name)
        ap.add_argument(flag, type=type(default), default=default,
                        help=f"{text} (default {default})")  # fmt: skip


def _dest(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def measured(
    tool: Path, corpus: Path, questions: Sequence[str], options: Options, log: Any = print
) -> Scaling:
    """`measure_scaling`, a failure reported in the section instead of ending the bench."""
    try:
        return measure_scaling(tool, corpus, questions, options, log)
    except (RuntimeError, OSError, subprocess.SubprocessError, httpx.HTTPError) as exc:
        return Scaling([], [], None, [], skipped=f"the measurement failed: {exc}")
