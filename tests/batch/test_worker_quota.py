"""A `sleuth worker` on PostgreSQL, as `deploy/compose.yaml` runs it, admits and meters every
question in the database the replicas read: an organization's quota holds for queued questions
and its usage counts them. (A worker once built a SQLite service store whatever
SLEUTH_DATABASE_URL said: an org with a quota of one search had all three questions answered,
and the shared usage showed 0 searches.)"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from typing import Any

import pytest

from sleuth.app.batch import parse_object
from sleuth.app.queue import enqueue, prepare_schema
from sleuth.store.batches_pg import BatchStore
from sleuth.store.service import UsageReport
from sleuth.store.service_pg import PgServiceStore
from tests.batch.pages import BATCH_DEFAULTS, add_questions
from tests.cli.helpers import run
from tests.testweb.server import TestWeb

pytestmark = pytest.mark.extra("queue")


def test_a_worker_on_postgres_keeps_the_orgs_quota_and_counts_its_usage(
    testweb_env: TestWeb,
    postgres_db: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("SLEUTH_DATABASE_URL", postgres_db)
    code, _, err = run(["keys", "create", "--org", "acme", "--quota-searches", "1"], capsys)
    assert code == 0, err
    lines = [parse_object(x, i + 1, f"h{i}") for i, x in enumerate(add_questions(testweb_env, 3))]

    async def queued() -> str:
        await prepare_schema(postgres_db)
        batch, count = await enqueue(postgres_db, "acme", lines, {})
        assert count == 3
        return batch

    batch = asyncio.run(queued())
    command = [sys.executable, "-m", "sleuth.cli", "worker", "--concurrency=1", "--until-empty",
               *BATCH_DEFAULTS]  # fmt: skip
    done = subprocess.run(command, env=dict(os.environ), capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr.decode()

    async def outcome() -> tuple[list[Any], UsageReport]:
        store = await BatchStore(postgres_db).open()
        try:
            records = [r async for _, r in store.records("acme", batch)]
        finally:
            await store.aclose()
        replica = PgServiceStore(postgres_db)  # what every replica reads
        try:
            usage = await replica.usage("acme", now=time.time())
        finally:
            await replica.aclose()
        return records, usage

    records, usage = asyncio.run(outcome())
    answered = [r for r in records if "result" in r]
    refused = [r for r in records if r.get("error", {}).get("kind") == "quota_exceeded"]
    assert (len(answered), len(refused)) == (1, 2)
    assert usage.searches == 1 and usage.quota_searches == 1
