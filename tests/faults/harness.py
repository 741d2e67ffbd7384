"""Run the real `sleuth` entry point in a child process with a memory ceiling, and measure it.

A memory bomb must never take the test machine down, so the child gets an address-space limit
(RLIMIT_AS) it cannot raise, a wall-clock kill, and its peak resident size is read back from
the kernel (`wait4` rusage: the largest of the child and every descendant it waited for).

The child is started by a small launcher (LAUNCH) that forks it and reports its rusage. A
process forked straight from the test process starts with that process's resident peak as its
own (Linux keeps the high-water mark of the memory it replaced at exec), so after a suite had
grown pytest to ~580 MB, every run "peaked" there, and the 600 MB bound failed on pytest's size.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

MB = 1024 * 1024
# argv: the file for the child's peak (KiB), then the child's command. Exits as the child did.
LAUNCH = """
import os, signal, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(str(usage.ru_maxrss))
if os.WIFSIGNALED(status):
    signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
    os.kill(os.getpid(), os.WTERMSIG(status))
sys.exit(os.waitstatus_to_exitcode(status))
"""


@dataclass(frozen=True, slots=True)
class Ran:
    code: int  # exit status; -N when killed by signal N
    out: str
    err: str
    peak_rss_mb: float  # largest resident size of the process tree the child waited for
    seconds: float
    killed: bool  # the wall-clock kill fired: the run hung


def run_limited(
    args: Sequence[str],
    env: Mapping[str, str],
    *,
    memory_mb: int = 4096,
    kill_after_s: float = 60.0,
) -> Ran:
    """`sleuth ARGS` in a child limited to `memory_mb` of address space, killed after
    `kill_after_s` (a cap that proves a hang did not happen, not a timing)."""

    def limit() -> None:
        os.setsid()
        resource.setrlimit(resource.RLIMIT_AS, (memory_mb * MB, memory_mb * MB))

    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.TemporaryDirectory() as tmp,
    ):
        peak = os.path.join(tmp, "peak")
        started = time.monotonic()
        child = subprocess.Popen(
            [sys.executable, "-c", LAUNCH, peak, sys.executable, "-m", "sleuth.cli", *args],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            env=dict(env),
            preexec_fn=limit,
        )
        killed = threading.Event()
        timer = threading.Timer(kill_after_s, _kill_group, (child.pid, killed))
        timer.start()
        try:
            _, status, _ = os.wait4(child.pid, 0)
        finally:
            timer.cancel()
        child.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.monotonic() - started
        out.seek(0)
        err.seek(0)
        return Ran(
            child.returncode,
            out.read().decode("utf-8", "replace"),
            err.read().decode("utf-8", "replace"),
            _peak_kib(peak) / 1024,
            seconds,
            killed.is_set(),
        )


def _peak_kib(path: str) -> int:
    """The launcher's report of the child's peak; 0 when it was killed before writing it."""
    try:
        with open(path) as f:
            return int(f.read() or 0)
    except FileNotFoundError:
        return 0


def _kill_group(pid: int, killed: threading.Event) -> None:
    killed.set()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)
