"""A real `sleuth serve` in a child process, measured from outside: its open file descriptors
and resident size from /proc/<pid>, its Prometheus gauges from /metrics, its log on a file
(the access log writes a line per request; a pipe nobody drains would block the server).

The home is made ready first: organizations with keys in its service store, so the server
starts in keyed mode as an operator's would.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

from sleuth.store.service_sqlite import SqliteServiceStore

LISTENING = re.compile(r"Uvicorn running on http://127\.0\.0\.1:(\d+)")
START_S = 60.0  # a cap that proves start-up did not hang, not a timing
SCRAPE_TOKEN = "fault-suite-scrape"  # /metrics needs it on a keyed server
SCRAPE = {"Authorization": f"Bearer {SCRAPE_TOKEN}"}
SERVE_ARGS = ("--search=searxng", "--search-fallback=none", "--browser=never")


def make_keys(home: Path, orgs: Sequence[str], scopes: tuple[str, ...]) -> dict[str, str]:
    """A key with `scopes` for each organization, made in the home's service store."""

    async def made() -> dict[str, str]:
        store = SqliteServiceStore(home)
        try:
            keys = {}
            for org in orgs:
                _, keys[org] = await store.create_key(org, scopes, now=time.time(), quotas={})
            return keys
        finally:
            await store.aclose()

    return asyncio.run(made())


@dataclass
class Served:
    """One `sleuth serve` child: where it listens, and what it holds."""

    process: subprocess.Popen[bytes]
    base: str
    log: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def fds(self) -> int:
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise AssertionError("no VmRSS in /proc status")

    def gauges(self) -> dict[str, float]:
        """Every unlabelled sample of /metrics, by name."""
        text = httpx.get(f"{self.base}/metrics", headers=SCRAPE, timeout=30).text
        found = {}
        for line in text.splitlines():
            name, _, value = line.partition(" ")
            if line and not line.startswith("#") and "{" not in name:
                found[name] = float(value)
        return found

    def errors_logged(self) -> list[str]:
        """Log lines of unexpected errors (the 500 handler logs 'unhandled error')."""
        text = self.log.read_text(errors="replace")
        return [
            line for line in text.splitlines() if "unhandled error" in line or "Traceback" in line
        ]

    def kill9(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> int:
        """SIGTERM, as an operator's service manager stops it; the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)
        return self.process.returncode


def serve(home: Path, env: Mapping[str, str], log: Path, *, extra: Sequence[str] = ()) -> Served:
    """Start `sleuth serve` on a free loopback port with SLEUTH_HOME=`home`; return once it
    listens."""
    args = [sys.executable, "-m", "sleuth.cli", "serve", "--port", "0", *SERVE_ARGS, *extra]
    seen = log.stat().st_size if log.exists() else 0  # a restart appends to the same log
    with log.open("ab") as sink:
        process = subprocess.Popen(
            args,
            env={**env, "SLEUTH_HOME": str(home), "SLEUTH_METRICS_TOKEN": SCRAPE_TOKEN},
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    started = time.monotonic()
    while time.monotonic() - started < START_S:
        found = LISTENING.findall(log.read_bytes()[seen:].decode(errors="replace"))
        if found:
            return Served(process, f"http://127.0.0.1:{found[-1]}", log)
        if process.poll() is not None:
            raise AssertionError(f"sleuth serve exited {process.returncode}: {log.read_text()}")
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        process.kill()
    raise AssertionError(f"sleuth serve did not listen within {START_S} s: {log.read_text()}")
