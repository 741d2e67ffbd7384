"""`sleuth worker` on PostgreSQL answers a queued question of an organization with its own
model on that model (its endpoint, its key, opened with the worker's SLEUTH_SECRET_KEY), and
another organization's on the worker's own model; each one's model spending is metered to it."""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys
import time
from typing import Any

import pytest

from sleuth.app.batch import parse_object
from sleuth.app.orgmodels import new_secret_key
from sleuth.app.queue import enqueue, prepare_schema
from sleuth.store.batches_pg import BatchStore
from sleuth.store.service_pg import PgServiceStore
from tests.batch.pages import BATCH_DEFAULTS
from tests.cli.helpers import run
from tests.llm.fake_servers import FakeLLMServer
from tests.server.research_llm import CLAIM, research_llm
from tests.testweb.server import TestWeb

pytestmark = pytest.mark.extra("queue")
Q = "How long does Example Cloud keep audit logs by default?"


def test_a_worker_runs_an_orgs_question_on_the_orgs_own_model(
    testweb_env: TestWeb,
    postgres_db: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    own = FakeLLMServer("openai", responder=research_llm()).start()
    default = FakeLLMServer("openai", responder=research_llm()).start()
    try:
        monkeypatch.setenv("SLEUTH_DATABASE_URL", postgres_db)
        monkeypatch.setenv("SLEUTH_SECRET_KEY", new_secret_key())
        monkeypatch.setenv("SLEUTH_PRICE_INPUT_PER_MTOK", "1000")  # loopback is free otherwise
        monkeypatch.setattr("sys.stdin", io.StringIO("sk-acme-own\n"))
        code, _, err = run(["keys", "org-model", "set", "--org", "acme", "--provider", "openai",
                            "--model", "acme-model", "--base-url", own.url], capsys)  # fmt: skip
        assert code == 0, err

        async def queued() -> dict[str, str]:
            await prepare_schema(postgres_db)
            batches = {}
            for org in ("acme", "globex"):
                batches[org], _ = await enqueue(
                    postgres_db, org, [parse_object({"question": Q}, 1, "q")], {}
                )
            return batches  # fmt: skip

        batches = asyncio.run(queued())
        command = [sys.executable, "-m", "sleuth.cli", "worker", "--concurrency=1",
                   "--until-empty", *BATCH_DEFAULTS, f"--base-url={default.url}",
                   "--api-key=sk-worker", "--model=worker-model"]  # fmt: skip
        done = subprocess.run(command, env=dict(os.environ), capture_output=True, timeout=300)
        assert done.returncode == 0, done.stderr.decode()
        assert {(r.key, r.body["model"]) for r in own.received} == {("sk-acme-own", "acme-model")}
        assert {(r.key, r.body["model"]) for r in default.received} == {
            ("sk-worker", "worker-model")
        }
        records, costs = asyncio.run(outcome(postgres_db, batches))
    finally:
        own.stop()
        default.stop()
    for org in ("acme", "globex"):
        (record,) = records[org]
        assert CLAIM in record["result"]["answer"]
        assert costs[org] == pytest.approx(record["result"]["usage"]["cost_usd"]) and costs[org]


async def outcome(
    url: str, batches: dict[str, str]
) -> tuple[dict[str, list[Any]], dict[str, float]]:
    store = await BatchStore(url).open()
    replica = PgServiceStore(url)
    try:
        records = {o: [r async for _, r in store.records(o, b)] for o, b in batches.items()}
        costs = {o: (await replica.usage(o, now=time.time())).cost_usd for o in batches}
    finally:
        await store.aclose()
        await replica.aclose()
    return records, costs
