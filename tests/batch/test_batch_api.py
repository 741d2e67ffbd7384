"""`/api/orgs/{org}/batches` on a real server and a real PostgreSQL: enqueue, a worker answers,
progress and the JSONL results; entries checked like `sleuth batch` lines; another
organization's batch is a 404; no database is a clear 503."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
import asyncio
import json
import time
from pathlib import Path

import httpx

from sleuth.app.application import Sleuth
from sleuth.app.queue import run_worker
from sleuth.settings import Settings
from tests.batch.pages import add_questions
from tests.server.harness import TESTWEB_DEFAULTS, serving
from tests.testweb.server import TestWeb

RUN = {**TESTWEB_DEFAULTS, "no_cache": True}


def drain() -> None:
    async def go() -> None:
        async with Sleuth(Settings.from_env()) as app:
            await run_worker(app, concurrency=2, wait=False, values=RUN)

    asyncio.run(go())


@pytest.mark.extra("queue")
def test_a_batch_through_the_api(
    testweb_env: TestWeb, postgres_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLEUTH_DATABASE_URL", postgres_db)
    lines = add_questions(testweb_env, 3)
    lines[2]["depth"] = "deep"
    with serving() as served:
        acme = {"X-API-Key": served.key("acme")}
        globex = {"X-API-Key": served.key("globex")}
        made = httpx.post(f"{served.api}/orgs/acme/batches", json={"questions": lines},
                          headers=acme)  # fmt: skip
        assert made.status_code == 202, made.text
        batch = made.json()
        assert (batch["total"], batch["queued"]) == (3, 3)
        status = served.base + batch["status_url"]
        assert httpx.get(status, headers=acme).json()["queued"] == 3
        # Another organization: not found, under its own path or the owner's.
        theirs = f"{served.api}/orgs/globex/batches/{batch['id']}"
        for url in (theirs, theirs + "/results"):
            got = httpx.get(url, headers=globex)
            assert got.status_code == 404 and got.json()["code"] == "NOT_FOUND"
        assert httpx.get(status, headers=globex).status_code == 404

        drain()
        progress = httpx.get(status, headers=acme).json()
        assert progress | {"created_at": ""} == {
            "id": batch["id"], "created_at": "", "total": 3, "done": 3, "failed": 0,
            "queued": 0, "finished": True, "results_url": batch["results_url"],
        }  # fmt: skip
        got = httpx.get(served.base + batch["results_url"], headers=acme)
        assert got.headers["content-type"].startswith("application/x-ndjson")
        records = [json.loads(x) for x in got.text.splitlines()]
        assert [r["id"] for r in records] == ["q0", "q1", "q2"]
        assert "1802" in records[2]["result"]["answer"]
        assert records[2]["result"]["answer"].startswith("## ")  # its own depth: deep
        served.clock.now = time.time()  # the workers meter on the wall clock
        usage = httpx.get(f"{served.api}/orgs/acme/usage", headers=acme).json()
        assert usage["meters"]["searches"]["used"] == sum(
            r["result"]["usage"]["searches"] for r in records
        )


@pytest.mark.extra("queue")
def test_bad_entries_are_refused_naming_the_entry(
    postgres_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLEUTH_DATABASE_URL", postgres_db)
    with serving() as served:
        key = {"X-API-Key": served.key("acme")}
        url = f"{served.api}/orgs/acme/batches"
        cases = [
            ([{"question": "ok"}, {"question": "q", "max_sources": 0}], "questions[1]",
             "max_sources must be between 1 and 50"),
            ([{"query": "a"}, {"id": "x"}], "questions[1]", "no question"),
            ([{"question": "a", "id": "x"}, {"question": "b", "id": "x"}], "questions[1]",
             "repeated"),
            ([{"question": "a", "search": "brave"}], "questions[0]", "batch-wide"),
        ]  # fmt: skip
        for questions, field, words in cases:
            got = httpx.post(url, json={"questions": questions}, headers=key)
            assert got.status_code == 400, got.text
            assert got.json()["field"] == field and words in got.json()["error"]
        assert httpx.post(url, json={"questions": []}, headers=key).status_code == 400
        huge = [{"question": f"q{i}"} for i in range(10_001)]
        assert httpx.post(url, json={"questions": huge}, headers=key).status_code in (400, 413)


def test_without_a_database_batches_say_what_is_missing(
    testweb_env: TestWeb, sleuth_home: Path
) -> None:
    with serving() as served:
        key = {"X-API-Key": served.key("acme")}
        got = httpx.post(f"{served.api}/orgs/acme/batches", json={"questions": [{"question": "q"}]},
                         headers=key)  # fmt: skip
        assert got.status_code == 503
        assert got.json()["code"] == "BATCHES_UNAVAILABLE"
        assert "SLEUTH_DATABASE_URL" in got.json()["error"]
