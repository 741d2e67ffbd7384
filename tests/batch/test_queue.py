"""Batches on the PostgreSQL task queue (procrastinate), in-process: enqueue, a worker drains
the queue through the application, every question ends with one record; quotas are metered
per question; one organization never sees another's batch."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from sleuth.app.application import Sleuth
from sleuth.app.batch import parse_object
from sleuth.app.queue import enqueue, prepare_schema, run_worker
from sleuth.settings import Settings
from sleuth.store.batches_pg import BatchStore
from tests.batch.pages import add_hanging_question, add_questions
from tests.testweb.server import TestWeb

pytestmark = pytest.mark.extra("queue")
RUN = {"search": "searxng", "search_fallback": "none", "browser": "never", "no_cache": True}


def parsed(lines: list[Any]) -> list[Any]:
    return [parse_object(x, i + 1, f"h{i}") for i, x in enumerate(lines)]


@pytest.fixture(autouse=True)
def _on_postgres(postgres_db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker keeps everything in the database of SLEUTH_DATABASE_URL, as deployed."""
    monkeypatch.setenv("SLEUTH_DATABASE_URL", postgres_db)


async def drain() -> None:
    async with Sleuth(Settings.from_env()) as app:
        await run_worker(app, concurrency=2, wait=False, values=RUN)


async def progress_and_records(url: str, org: str, batch: str) -> tuple[Any, list[Any]]:
    store = await BatchStore(url).open()
    try:
        progress = await store.progress(org, batch)
        records = [r async for _, r in store.records(org, batch)]
    finally:
        await store.aclose()
    return progress, records


def test_a_worker_answers_every_queued_question_once(
    testweb_env: TestWeb, postgres_db: str, sleuth_home: Path
) -> None:
    lines: list[Any] = [*add_questions(testweb_env, 3), add_hanging_question(testweb_env), []]

    async def go() -> tuple[Any, list[Any]]:
        await prepare_schema(postgres_db)
        batch, queued = await enqueue(postgres_db, "acme", parsed(lines), {})
        assert queued == 4  # the bad line is recorded at once, not queued
        await drain()
        return await progress_and_records(postgres_db, "acme", batch)

    progress, records = asyncio.run(go())
    assert progress.finished and (progress.done, progress.failed) == (3, 2), records
    by_id = {r["id"]: r for r in records}
    assert [r["line"] for r in records] == [1, 2, 3, 4, 5]
    assert "1801" in by_id["q1"]["result"]["answer"]
    assert by_id["stuck"]["error"]["kind"] == "deadline_exceeded"
    assert by_id["h4"]["error"]["kind"] == "input"


def test_quotas_are_metered_per_question_and_a_spent_quota_fails_the_rest(
    testweb_env: TestWeb, postgres_db: str
) -> None:
    """On PostgreSQL, as `deploy/compose.yaml` runs it: the worker admits and meters in the
    database every replica reads (a worker once metered into its own SQLite file, so an org
    with a quota of one search had all its questions answered and its usage showed 0)."""
    lines = add_questions(testweb_env, 4)

    async def go() -> tuple[Any, list[Any], Any]:
        await prepare_schema(postgres_db)
        async with Sleuth(Settings.from_env()) as app:
            await app.service_store.create_key("acme", ("research",), now=time.time(),
                                               quotas={"searches": 2})  # fmt: skip
            batch, _ = await enqueue(postgres_db, "acme", parsed(lines), {})
            await run_worker(app, concurrency=1, wait=False, values=RUN)
        async with Sleuth(Settings.from_env()) as replica:  # what any replica sees
            usage = await replica.service_store.usage("acme", now=time.time())
        progress, records = await progress_and_records(postgres_db, "acme", batch)
        return progress, records, usage

    progress, records, usage = asyncio.run(go())
    assert (progress.done, progress.failed) == (2, 2)
    kinds = sorted(r["error"]["kind"] for r in records if "error" in r)
    assert kinds == ["quota_exceeded", "quota_exceeded"]
    assert usage.searches == 2  # one search per answered question, metered once each
    assert usage.pages_read == sum(r["result"]["usage"]["pages_read"] for r in records
                                   if "result" in r)  # fmt: skip


def test_one_organization_never_sees_another_organizations_batch(postgres_db: str) -> None:
    async def go() -> tuple[Any, ...]:
        await prepare_schema(postgres_db)
        batch, _ = await enqueue(postgres_db, "acme", parsed([{"question": "q"}]), {})
        store = await BatchStore(postgres_db).open()
        try:
            mine = await store.progress("acme", batch)
            theirs = await store.progress("globex", batch)
            their_records = [r async for r in store.records("globex", batch)]
        finally:
            await store.aclose()
        return mine, theirs, their_records

    mine, theirs, their_records = asyncio.run(go())
    assert mine is not None and mine.total == 1 and mine.queued == 1
    assert theirs is None and their_records == []


def test_a_queued_resume_keeps_earlier_failures_and_retries_them_on_request(
    testweb_env: TestWeb,
    postgres_db: str,
    sleuth_home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`batch --queue` resumes as a local batch does (issue 27): an id that failed earlier is
    skipped and said; `--retry-failed` queues it again and its record is replaced."""
    import json

    from tests.batch.pages import records, write_lines
    from tests.cli.helpers import run

    monkeypatch.setenv("SLEUTH_DATABASE_URL", postgres_db)
    lines = add_questions(testweb_env, 2)
    questions = write_lines(tmp_path / "q.jsonl", lines)
    out = tmp_path / "r.jsonl"
    failed = {"kind": "search_failed", "message": "down"}
    earlier = [{**lines[0], "line": 1, "result": {"answer": "x"}}, {**lines[1], "error": failed}]
    out.write_text("".join(json.dumps(r) + "\n" for r in earlier), encoding="utf-8")
    base = ["batch", str(questions), "--queue", "--no-wait", f"--out={out}"]
    code, _, err = run(base, capsys)
    assert code == 0 and "0 questions queued" in err, err
    assert "1 failed in an earlier run and skipped (run them again with --retry-failed)" in err
    code, batch_id, err = run([*base, "--retry-failed"], capsys)
    assert code == 0 and "1 questions queued" in err, err
    assert [r["id"] for r in records(out)] == ["q0"]  # the old failure is out of the file
    asyncio.run(drain())
    code, _, err = run(["batch", "--follow", batch_id.strip(), f"--out={out}"], capsys)
    assert code == 0, err
    got = {r["id"]: r for r in records(out)}
    assert len(records(out)) == 2 and "1801" in got["q1"]["result"]["answer"]
