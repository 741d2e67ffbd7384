"""A real `sleuth serve` (a child process, measured from /proc and /metrics) under concurrent
loopback clients on the test web: cached and fresh research, search, research streams left
midway, bad requests. Afterwards: every status is one the OpenAPI document gives the route
and none is a 500; runs, run tasks and event-loop tasks are back to idle, and so are the
open file descriptors (within a small slack) and the resident size (within a stated bound of
the level after a warm-up of the same load); every research answer names a session that is
saved. And a `kill -9` mid-burst: every run a client got back is in the store after a
restart, the databases pass `PRAGMA integrity_check`, the restarted server serves at once.

Each test runs short in `make test` (the mechanism) and at full size in `make soak` (200
clients for 60 s), which writes its figures to the soak report.
"""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
import asyncio
import os
import sqlite3
import statistics
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx

from tests.faults.load import QUESTIONS, RESEARCH, Clients, Hit
from tests.faults.matrix import child_env
from tests.faults.report import write_section
from tests.faults.served import SCRAPE, Served, make_keys, serve
from tests.testweb.server import TestWeb

ORGS = ("acme", "globex", "initech", "umbrella")
SLOTS = ("--run-slots", "4", "--org-runs", "2")  # the defaults, said out loud
FD_SLACK = 8  # descriptors a quiet server may hold or not (pooled threads' database handles)
RSS_BOUND_MB = 50.0  # after the burst, over the level after the warm-up
SETTLE_S = 30.0  # how long an idle server gets to close what the burst opened
# A cap proving a restarted server did not wait out a dead one's leases (105 s), not a timing.
RESTARTED_CAP_S = 60.0
ROWS: list[tuple[str, str]] = []


@dataclass(frozen=True, slots=True)
class Size:
    clients: int
    seconds: float
    warm_seconds: float


# The warm-up is as long as the short burst, so the server's thread pool (and the database
# handles its threads hold) has grown to what a burst of this size uses before the baseline.
SHORT = Size(30, 5.0, 5.0)
FULL = Size(200, 60.0, 10.0)
SIZES = [
    pytest.param(SHORT, id="short"),
    pytest.param(FULL, id="soak", marks=[pytest.mark.soak, pytest.mark.timeout(1200)]),
]


@pytest.fixture(scope="module", autouse=True)
def report() -> Iterator[None]:
    yield
    target = os.environ.get("SLEUTH_SOAK_REPORT")
    if target and ROWS:
        _write(Path(target))


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def start(home: Path, log: Path) -> tuple[Served, Clients]:
    keys = make_keys(home, ORGS, ("research", "search"))
    weak = make_keys(home, ["acme"], ("search",))["acme"]
    served = serve(home, child_env(), log, extra=SLOTS)
    return served, Clients(served.base, keys, weak)


@pytest.mark.parametrize("size", SIZES)
def test_a_burst_of_clients_leaves_nothing_behind(
    size: Size, testweb_env: TestWeb, home: Path, tmp_path: Path
) -> None:
    served, clients = start(home, tmp_path / "serve.log")
    try:
        documented = _documented(served)
        idle_rss = served.rss_mb()
        asyncio.run(clients.each_once())
        asyncio.run(clients.burst(size.clients, size.warm_seconds))
        before = _settled(served)
        warm = len(clients.hits)
        peaks = _Peaks(served)
        with peaks:
            started = time.monotonic()
            asyncio.run(clients.burst(size.clients, size.seconds))
            elapsed = time.monotonic() - started
        after = _settled(served, before)
        hits = clients.hits[warm:]
        saved = _saved(home, clients.hits)
    finally:
        code = served.stop()

    # uvicorn ends a graceful SIGTERM shutdown by re-raising the signal: -15 is a clean stop.
    assert code in (0, -15) and "Application shutdown complete" in served.log.read_text(), code
    print(before, after, sep="\n")
    _check_statuses(clients.hits, documented)
    assert not served.errors_logged(), served.errors_logged()[:5]
    assert after.idle, f"still busy after {SETTLE_S} s: {after}"
    assert after.loop_tasks <= before.loop_tasks, (before, after)  # no task left behind
    assert after.fds <= before.fds + FD_SLACK, (before, after)
    assert after.rss_mb <= before.rss_mb + RSS_BOUND_MB, (before, after)
    answered = [h for h in clients.hits if h.session_id is not None]
    assert all(h.session_id for h in answered), "a research answer named no saved session"
    assert answered and not {h.session_id for h in answered} - saved, "an answered run is not saved"
    # Streams were left midway (one in the warm-up each time; a burst's by chance).
    assert any(h.kind == "stream" and h.note == "left" for h in clients.hits)
    ROWS.extend(_figures(size, hits, elapsed, idle_rss, before, after, peaks, answered, saved))


@pytest.mark.parametrize("size", SIZES)
def test_kill_9_mid_burst_loses_no_answered_run(
    size: Size, testweb_env: TestWeb, home: Path, tmp_path: Path
) -> None:
    log = tmp_path / "serve.log"
    served, clients = start(home, log)
    try:
        asyncio.run(clients.each_once())
        answered_before_kill = asyncio.run(_burst_then_kill(served, clients, size))
    finally:
        served.stop()
    answered = _answered(clients.hits)  # with any answer still read after the kill
    assert answered >= answered_before_kill
    left = _claims(home)
    checks = {db.name: _integrity(db) for db in sorted(home.glob("*.db"))}
    assert checks and set(checks.values()) == {"ok"}, checks

    again = serve(home, child_env(), log, extra=SLOTS)
    try:
        with httpx.Client(base_url=again.base, timeout=RESTARTED_CAP_S) as http:
            for org, session in sorted(answered):
                got = http.get(f"/api/orgs/{org}/runs/{session}", headers=_key(clients, org))
                assert got.status_code == 200, (org, session, got.text)
        # What the killed server held (run slots of its organizations, identical requests
        # it was running, Idempotency-Keys it was answering) holds nothing back now.
        for org in ORGS:
            statuses = asyncio.run(_at_once(again, clients, org))
            assert statuses == [200] * len(statuses), (org, statuses)
    finally:
        again.stop()
    ROWS.append(
        (
            f"`kill -9` mid-burst ({size.clients} clients), restart on the same home",
            f"{len(answered)} answered runs before the kill, {len(answered)} found after the "
            f"restart; `PRAGMA integrity_check` ok on {', '.join(checks)}; the kill left {left},"
            " void at once: each organization's next runs (2 at once, every question, each"
            " with a used Idempotency-Key) answered 200",
        )
    )


# -- the burst and what it left ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Level:
    fds: int
    rss_mb: float
    loop_tasks: float
    idle: bool  # no run in flight, no live run, no run task
    gauges: dict[str, float]


def _level(served: Served) -> Level:
    gauges = served.gauges()
    idle = all(
        gauges.get(name, -1) == 0
        for name in ("sleuth_runs_in_flight", "sleuth_live_runs", "sleuth_run_tasks")
    )
    return Level(served.fds(), served.rss_mb(), gauges["sleuth_event_loop_tasks"], idle, gauges)


def _settled(served: Served, target: Level | None = None) -> Level:
    """The server's level once idle (and, given a target, back to its task and fd counts),
    or whatever it is after SETTLE_S."""
    deadline = time.monotonic() + SETTLE_S
    while True:
        level = _level(served)
        back = target is None or (level.loop_tasks <= target.loop_tasks and level.fds <= target.fds)
        if (level.idle and back) or time.monotonic() > deadline:
            return level
        time.sleep(0.5)


class _Peaks:
    """The largest fd count and resident size seen while the block runs (sampled twice a
    second from /proc, on a thread)."""

    def __init__(self, served: Served) -> None:
        self.served, self.fds, self.rss_mb = served, 0, 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(0.5):
            self.fds = max(self.fds, self.served.fds())
            self.rss_mb = max(self.rss_mb, self.served.rss_mb())

    def __enter__(self) -> _Peaks:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


async def _burst_then_kill(served: Served, clients: Clients, size: Size) -> set[tuple[str, str]]:
    """Clients going; `kill -9` once enough runs were answered (or the burst's time is up);
    the number answered at the moment of the kill."""
    stop = asyncio.Event()
    warm = len(clients.hits)
    going = asyncio.create_task(clients.burst(size.clients, size.seconds * 4, stop))
    deadline = time.monotonic() + size.seconds
    want = max(3, size.clients // 10)
    while time.monotonic() < deadline and len(_answered(clients.hits[warm:])) < want:  # noqa: ASYNC110
        await asyncio.sleep(0.1)  # the clients' tally is a list: polled
    async with httpx.AsyncClient(base_url=served.base, timeout=30) as http:
        while time.monotonic() < deadline + size.seconds:  # mid-run: runs are going
            text = (await http.get("/metrics", headers=SCRAPE)).text
            if "sleuth_runs_in_flight 0.0" not in text:
                break
            await asyncio.sleep(0.05)
    answered = _answered(clients.hits)
    await asyncio.to_thread(served.kill9)
    stop.set()
    await going
    return answered


async def _at_once(served: Served, clients: Clients, org: str) -> list[int]:
    """Statuses of what an organization may do at once (--org-runs 2): two fresh runs, then
    each question the burst asked (answered from the cache or by a run), each with an
    Idempotency-Key the burst used."""
    async with httpx.AsyncClient(base_url=served.base, timeout=RESTARTED_CAP_S) as http:
        headers = _key(clients, org)
        url = RESEARCH.format(org=org)
        fresh = {"query": QUESTIONS[0], "no_cache": True}
        two = [http.post(url, json=fresh, headers=headers) for _ in range(2)]
        statuses = [r.status_code for r in await asyncio.gather(*two)]
        for n, question in enumerate(QUESTIONS):
            keyed = {**headers, "Idempotency-Key": f"{org}-{n}"}
            got = await http.post(url, json={"query": question}, headers=keyed)
            statuses.append(got.status_code)
        return statuses


def _answered(hits: list[Hit]) -> set[tuple[str, str]]:
    """(organization, session id) of every research answer received."""
    return {(h.org, h.session_id) for h in hits if h.session_id}


def _saved(home: Path, hits: list[Hit]) -> set[str]:
    """The ids among the hits' sessions that are in the sessions database."""
    wanted = {h.session_id for h in hits if h.session_id}
    with closing(sqlite3.connect(home / "sessions.db")) as conn:
        rows = conn.execute("SELECT id FROM sessions").fetchall()
    return wanted & {row[0] for row in rows}


def _claims(home: Path) -> str:
    """What a killed server left claimed in the service store."""
    with closing(sqlite3.connect(home / "service.db")) as conn:
        counts = [
            conn.execute(f"SELECT count(*) FROM {table}{where}").fetchone()[0]
            for table, where in (
                ("reservations", ""),
                ("flights", ""),
                ("idempotency", " WHERE done = 0"),
            )
        ]
    return "{} run reservations, {} flights, {} Idempotency-Keys in progress".format(*counts)


def _integrity(path: Path) -> str:
    with closing(sqlite3.connect(path)) as conn:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])


def _key(clients: Clients, org: str) -> dict[str, str]:
    return {"X-API-Key": clients.keys[org]}


def _documented(served: Served) -> dict[tuple[str, str], set[int]]:
    spec = httpx.get(f"{served.base}/api/openapi.json", timeout=30).json()
    return {
        (method, path): {int(s) for s in op["responses"]}
        for path, ops in spec["paths"].items()
        for method, op in ops.items()
    }


def _check_statuses(hits: list[Hit], documented: dict[tuple[str, str], set[int]]) -> None:
    """Every answer got: a status the route documents, never 500 (nor a 500 error event in a
    stream), no connection failure, and a Retry-After on every 429 and 503."""
    failed = [h for h in hits if h.status == 0]
    assert not failed, failed[:5]
    wrong = {
        (h.method, h.route, h.status, h.kind)
        for h in hits
        if h.status == 500 or h.status not in documented[(h.method, h.route)]
    }
    assert not wrong, sorted(wrong)
    errors = [h for h in hits if h.note and h.note.startswith("error event 500")]
    assert not errors, errors[:5]
    unsaid = [h for h in hits if h.note == "no Retry-After"]
    assert not unsaid, unsaid[:5]  # every 429 and 503 tells the client when to come back


# -- the report --------------------------------------------------------------------------------


def _figures(size: Size, hits: list[Hit], elapsed: float, idle_rss: float, before: Level,
             after: Level, peaks: _Peaks, answered: list[Hit],
             saved: set[str]) -> list[tuple[str, str]]:  # fmt: skip
    statuses = Counter(h.status for h in hits)
    kinds = Counter(h.kind.split(":")[0] for h in hits)
    left = sum(1 for h in hits if h.kind == "stream" and h.note == "left")
    label = f"{size.clients} clients for {size.seconds:.0f} s"
    return [
        (
            f"{label}: requests",
            f"{len(hits)} in {elapsed:.0f} s ({len(hits) / elapsed:.0f}/s); "
            + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
            + f"; {left} streams left midway",
        ),
        (f"{label}: statuses", ", ".join(f"{s}: {n}" for s, n in sorted(statuses.items()))),
        (f"{label}: latency", _latency(hits)),
        (
            f"{label}: file descriptors",
            f"{before.fds} after the warm-up, peak {peaks.fds}, {after.fds} after"
            f" (bound: +{FD_SLACK})",
        ),
        (
            f"{label}: resident size",
            f"{idle_rss:.0f} MB idle at start, {before.rss_mb:.0f} MB after the warm-up,"
            f" peak {peaks.rss_mb:.0f} MB, {after.rss_mb:.0f} MB after"
            f" (bound: +{RSS_BOUND_MB:.0f} MB over the warm-up level)",
        ),
        (
            f"{label}: tasks",
            f"event-loop tasks {before.loop_tasks:.0f} after the warm-up,"
            f" {after.loop_tasks:.0f} after; runs in flight, live runs, run tasks all 0",
        ),
        (
            f"{label}: runs saved",
            f"{len(answered)} research answers named {len({h.session_id for h in answered})}"
            f" sessions; {len(saved)} of them in sessions.db (cached answers name their run's)",
        ),
    ]


def _latency(hits: list[Hit]) -> str:
    parts = []
    for kind in ("cached", "fresh", "search", "bad"):
        ms = sorted(h.ms for h in hits if h.kind.split(":")[0] == kind and h.status)
        if ms:
            p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
            parts.append(f"{kind} p50 {statistics.median(ms):.0f} ms / p99 {p99:.0f} ms")
    return "; ".join(parts)


def _write(path: Path) -> None:
    load = os.getloadavg()
    lines = [
        f"## `sleuth serve` under concurrent clients ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC)",
        "",
        "tests/faults/test_served.py: a real `sleuth serve` child process (keys required,"
        " `--run-slots 4 --org-runs 2`, 4 organizations) on the loopback test web, no model"
        " (extractive answers). Clients on the same machine mix cached and fresh research,"
        " search, research streams left after a few events, bad requests and run listings;"
        " after a 429/503 a client waits up to the Retry-After. Descriptors and resident size"
        f" are read from /proc/<pid>. {os.cpu_count()} cores shared with other work, load"
        f" average {load[0]:.1f} at the end: latencies are wall clock under that load.",
        "",
        "| measure | figures |",
        "| --- | --- |",
        *(f"| {name} | {value} |" for name, value in ROWS),
    ]
    write_section(path, lines)
