"""Two real `sleuth serve` replicas on one PostgreSQL database behind a real nginx, on loopback,
against the loopback test web, driven by the published `xdive` SDK as a team's clients would:

- 100 concurrent requests (identical and distinct) through nginx: exactly one engine run per
  distinct question across both replicas (the test web's search log and the saved sessions),
  both replicas served, usage metered exactly;
- a tight quota hammered from both replicas at once: spent exactly to the unit, never over;
- an `Idempotency-Key` retried through nginx (so on either replica) returns the first response;
- `kill -9` of the replica running a request while the other replica's identical request
  waits on it: the waiter takes the run over and completes instead of hanging.

Skips with a reason without nginx (Debian package `nginx`), PostgreSQL or the postgres extra.
"""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
pytest.importorskip("xdive", reason="the server tests need sleuth[server] and the dev extra")
pytest.importorskip("psycopg", reason="needs the postgres extra: pip install -e '.[postgres]'")
import asyncio
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
from xdive import AsyncXDive, QuotaExceeded

from tests.cli.helpers import run
from tests.nginx import NGINX, front, stop_all
from tests.server.pages import SLOW_Q, add_slow_page
from tests.server.test_sdk import _wait_ready, free_port, start_serve
from tests.testweb.server import TestWeb

SCRAPE = "replicas-scrape-token"  # /metrics needs it on a keyed server

Q = "How long does Example Cloud keep audit logs by default?"


@dataclass
class Team:
    base: str  # nginx, http://127.0.0.1:PORT
    replicas: list[str]  # each replica's own base URL
    procs: list[subprocess.Popen[str]]
    database: str


@pytest.fixture
def nginx_bin() -> str:
    if NGINX is None:
        pytest.skip("needs nginx (Debian package: apt-get install nginx)")
    return NGINX


@pytest.fixture
def team(
    nginx_bin: str,
    postgres_db: str,
    testweb_env: TestWeb,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> Iterator[Team]:
    """Two `sleuth serve` processes on one database (SLEUTH_DATABASE_URL), nginx in front.
    Their logs go to files in the test's temporary folder, kept for reading after a failure
    (an unread pipe also fills up and blocks a server writing its access log)."""
    monkeypatch.setenv("SLEUTH_DATABASE_URL", postgres_db)
    monkeypatch.setenv("SLEUTH_METRICS_TOKEN", SCRAPE)
    ports = [free_port(), free_port()]
    flags = ("--run-slots=200", "--org-runs=0", "--org-rate=0")
    logs = [(tmp_path / f"replica-{port}.log").open("w") for port in ports]
    procs = [start_serve(port, *flags, log=log) for port, log in zip(ports, logs, strict=True)]
    replicas = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        for replica, proc, log in zip(replicas, procs, logs, strict=True):
            _wait_ready(replica, proc, log)
        with front(ports, free_port()) as base:
            yield Team(base, replicas, procs, postgres_db)
    finally:
        stop_all(procs)
        for log in logs:
            log.close()


def _key(capsys: pytest.CaptureFixture[str], org: str, *quota: str) -> str:
    code, key, err = run(["keys", "create", "--org", org, *quota], capsys)
    assert code == 0, err
    return key.strip()


def _metric(base: str, name: str) -> float:
    scrape = {"Authorization": f"Bearer {SCRAPE}"}
    text = httpx.get(base + "/metrics", headers=scrape, timeout=30).text
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            total += float(line.rsplit(" ", 1)[1])
    return total


def _usage(team: Team, org: str, key: str) -> dict:
    response = httpx.get(f"{team.base}/api/orgs/{org}/usage", headers={"X-API-Key": key},
                         timeout=30)  # fmt: skip
    response.raise_for_status()
    return response.json()


async def _hammer(team: Team, key: str, org: str, questions: list[str]) -> list[object]:
    async with AsyncXDive(key, base_url=team.base + "/api", org_id=org, timeout=120) as client:
        return list(
            await asyncio.gather(*(client.research(q) for q in questions), return_exceptions=True)
        )


def _sessions(database: str, org: str) -> list[str]:
    import psycopg

    with psycopg.connect(database) as conn:
        rows = conn.execute("SELECT question FROM sessions WHERE org = %s", (org,)).fetchall()
    return [r[0] for r in rows]


def test_two_replicas_behind_nginx_share_runs_quotas_and_idempotency(
    team: Team, testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    key = _key(capsys, "acme", "--quota-searches", "100000")
    distinct = [f"{Q} (case {i})" for i in range(40)]
    questions = [Q] * 60 + distinct
    answers = asyncio.run(_hammer(team, key, "acme", questions))
    failures = [a for a in answers if isinstance(a, BaseException)]
    assert not failures, failures[:3]
    results = [a for a in answers if isinstance(a, dict)]
    # One engine run per distinct question, whichever replica each request reached.
    searched = testweb_env.searches
    assert sorted(set(searched)) == sorted({Q, *distinct})
    assert len(searched) == 41, searched
    assert len({r["session_id"] for r in results[:60]}) == 1
    assert len({r["session_id"] for r in results}) == 41
    assert sorted(_sessions(team.database, "acme")) == sorted([Q, *distinct])
    runs = [_metric(replica, "sleuth_runs_total") for replica in team.replicas]
    assert sum(runs) == 41 and all(n > 0 for n in runs), runs  # both replicas ran some
    spent = sum(r["usage"]["searches"] for r in {r["session_id"]: r for r in results}.values())
    assert _usage(team, "acme", key)["meters"]["searches"]["used"] == spent == 41

    # A quota of 7 searches hammered from both replicas at once: spent to the unit.
    tight = _key(capsys, "tight", "--quota-searches", "7")
    outcomes = asyncio.run(_hammer(team, tight, "tight", [f"{Q} [t{i}]" for i in range(30)]))
    ok = [o for o in outcomes if isinstance(o, dict)]
    refused = [o for o in outcomes if isinstance(o, QuotaExceeded)]
    assert len(ok) == 7 and len(refused) == 23, outcomes
    assert _usage(team, "tight", tight)["meters"]["searches"]["used"] == 7
    assert len(_sessions(team.database, "tight")) == 7

    # The same Idempotency-Key, sent again and again through nginx (so to both replicas),
    # concurrently and after it finished: every answer is the first response.
    headers = {"X-API-Key": key, "Idempotency-Key": "retry-me-1"}
    body = {"query": f"{Q} (idempotent)", "depth": "quick", "no_cache": True}
    url = f"{team.base}/api/orgs/acme/research"

    def post() -> httpx.Response:
        for _ in range(100):  # 409 while the first attempt runs: retry as the SDK does
            response = httpx.post(url, json=body, headers=headers, timeout=120)
            if response.status_code != 409:
                return response
            time.sleep(0.2)
        raise AssertionError("still running after 20 s")

    threads_out: list[httpx.Response] = []
    threads = [threading.Thread(target=lambda: threads_out.append(post())) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=180)
    later = [post() for _ in range(4)]
    every = threads_out + later
    assert len(every) == 10 and all(r.status_code == 200 for r in every), every
    assert len({r.json()["session_id"] for r in every}) == 1
    assert len({r.content for r in every}) == 1
    assert _sessions(team.database, "acme").count(body["query"]) == 1


def test_kill_9_of_the_running_replica_hands_the_run_to_the_waiter(
    team: Team, testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    add_slow_page(testweb_env, delay_s=6.0)
    key = _key(capsys, "acme")
    a, b = team.replicas
    body = {"query": SLOW_Q, "depth": "quick"}
    headers = {"X-API-Key": key}
    out: dict[str, object] = {}

    def ask(name: str, base: str) -> None:
        try:
            out[name] = httpx.post(f"{base}/api/orgs/acme/research", json=body,
                                   headers=headers, timeout=180)  # fmt: skip
        except httpx.HTTPError as exc:
            out[name] = exc

    first = threading.Thread(target=ask, args=("a", a))
    first.start()
    _wait_for_flight(team.database)  # replica A claimed the run and is reading the slow page
    second = threading.Thread(target=ask, args=("b", b))
    second.start()
    time.sleep(1.5)  # B is waiting on A's run (it polls the claim and the result cache)
    assert testweb_env.searches.count(SLOW_Q) == 1  # only A has run it so far
    os.kill(team.procs[0].pid, signal.SIGKILL)
    first.join(timeout=30)
    assert isinstance(out["a"], httpx.HTTPError)  # A's own client lost its connection
    started = time.monotonic()
    second.join(timeout=120)
    assert not second.is_alive(), "the waiter on replica B hung after A was killed"
    answer = out["b"]
    assert isinstance(answer, httpx.Response) and answer.status_code == 200, answer
    data = answer.json()
    assert data["answer"] and data["cached"] is False
    assert testweb_env.searches.count(SLOW_Q) == 2  # B ran it itself after A's lease lapsed
    assert _metric(b, "sleuth_runs_total") == 1
    assert time.monotonic() - started < 110


def _wait_for_flight(database: str) -> None:
    import psycopg

    for _ in range(300):
        with psycopg.connect(database) as conn:
            if conn.execute("SELECT count(*) FROM flights").fetchone() == (1,):
                return
        time.sleep(0.1)
    raise AssertionError("no replica claimed the run")
