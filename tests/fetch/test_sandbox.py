"""The extraction sandbox (issue 12, item 3): a document that needs too much memory or time, or
whose read is cancelled, costs one killed worker and a typed error, never the process."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sleuth.errors import ExtractionError, FetchError
from sleuth.fetch.body import Body
from sleuth.fetch.parse import to_page
from sleuth.fetch.sandbox import MB, Sandbox, SandboxLimits
from tests.testweb.bombs import pdf_bomb

GOOD_HTML = (
    b"<html><head><title>Audit logs</title></head><body><main><p>"
    + b"Audit logs are kept for ninety days by default in Example Cloud. " * 4
    + b"</p></main></body></html>"
)


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    box = Sandbox(SandboxLimits(memory_bytes=768 * MB, time_s=30.0, workers=1))
    yield box
    box.close()


def body(data: bytes, mime: str = "text/html", url: str = "http://example.org/a") -> Body:
    return Body(url, url, mime, None, data, truncated=False)


def sleep_then_return(seconds: float, pid_file: str) -> str:
    Path(pid_file).write_text(str(os.getpid()))
    time.sleep(seconds)
    return "finished"


def raise_fetch_error() -> None:
    raise FetchError("no text", "http://example.org/empty")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_a_pdf_inflate_bomb_is_a_typed_error_and_the_next_page_still_reads(
    sandbox: Sandbox,
) -> None:
    bomb = body(pdf_bomb(500 * 1024 * 1024), "application/pdf", "http://example.org/bomb.pdf")
    assert len(bomb.data) < 5_000_000  # under the body cap: only the sandbox stops it
    with pytest.raises(ExtractionError) as caught:
        await sandbox.run(to_page, bomb, 50)
    assert "memory" in caught.value.reason
    page = await sandbox.run(to_page, body(GOOD_HTML), 50)
    assert "ninety days" in page.text


async def test_an_extraction_over_its_time_limit_is_killed(tmp_path: Path) -> None:
    box = Sandbox(SandboxLimits(time_s=2.0, workers=1))
    try:
        await box.run(os.getpid)  # a started worker: the limit then times the call alone
        with pytest.raises(ExtractionError, match="longer than 2s"):
            await box.run(sleep_then_return, 60.0, str(tmp_path / "pid"))
        pid = int((tmp_path / "pid").read_text())
        assert await _gone(pid), "the overrunning worker was not killed"
    finally:
        box.close()


async def test_cancelling_the_read_kills_its_extraction(sandbox: Sandbox, tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    task = asyncio.create_task(sandbox.run(sleep_then_return, 60.0, str(pid_file)))
    for _ in range(200):  # the worker may take a moment to start
        if pid_file.exists() and pid_file.read_text():
            break
        await asyncio.sleep(0.05)
    pid = int(pid_file.read_text())
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _gone(pid), "a cancelled extraction kept running"


async def test_a_fetch_error_raised_in_a_worker_keeps_its_url(sandbox: Sandbox) -> None:
    with pytest.raises(FetchError) as caught:
        await sandbox.run(raise_fetch_error)
    assert (caught.value.reason, caught.value.url) == ("no text", "http://example.org/empty")


def test_the_blocking_form_reports_the_same_errors(sandbox: Sandbox) -> None:
    bomb = body(pdf_bomb(500 * 1024 * 1024), "application/pdf")
    with pytest.raises(ExtractionError):
        sandbox.run_sync(to_page, bomb, 50)
    assert "ninety days" in sandbox.run_sync(to_page, body(GOOD_HTML), 50).text


async def _gone(pid: int, within_s: float = 15.0) -> bool:
    """The process has exited (polled; a worker left running would sleep for a minute)."""
    stop = time.monotonic() + within_s
    while time.monotonic() < stop:
        if not alive(pid) or _zombie(pid):
            return True
        await asyncio.sleep(0.1)
    return False


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].startswith("Z")
    except (OSError, IndexError):
        return True


def pause(seconds: float) -> float:
    time.sleep(seconds)
    return time.monotonic()


async def test_a_small_page_is_not_held_behind_a_big_one(sandbox: Sandbox) -> None:
    """With every worker busy, the smallest waiting document goes next: an ordinary page is
    not starved by hostile megabytes that will use up their time limit."""
    await sandbox.run(os.getpid)  # a started worker
    busy = asyncio.create_task(sandbox.run(pause, 1.0, size=0))
    await asyncio.sleep(0.2)
    big = asyncio.create_task(sandbox.run(pause, 0.5, size=5_000_000))
    await asyncio.sleep(0.1)  # the big one waits first
    small = asyncio.create_task(sandbox.run(pause, 0.0, size=2_000))
    await busy
    assert await small < await big
