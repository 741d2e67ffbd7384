"""Parse untrusted documents in worker processes that can be stopped.

Reading a page is bounded from the outside (size cap, deadlines), but parsing it is not: a 4 MB
PDF whose content stream inflates to 500 MB made PDFium take 7 GB and then abort the whole
process, and a page of 550,000 tiny paragraphs kept trafilatura busy for over a minute. A thread
cannot be stopped, so a cancelled read used to leave its extraction running and the process
waited for it at exit. Here each extraction runs in a worker process (`worker.py`) with an
address-space limit and a time limit: a worker that runs out of memory, crashes, overruns its
time or whose caller was cancelled is killed, and the caller gets an `ExtractionError` with the
reason. At most `workers` run at once; idle ones are kept for the next page.
"""

from __future__ import annotations

import asyncio
import atexit
import heapq
import itertools
import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import ExtractionError
from .worker import receive, send

T = TypeVar("T")
MB = 1024 * 1024
# Address space per worker. An idle worker with trafilatura, lxml and PDFium loaded maps about
# 300 MB; the rest is for the document. Ordinary pages need far less than this.
MEMORY_LIMIT_BYTES = 1024 * MB
TIME_LIMIT_S = 20.0
WORKERS = 2  # the machines Sleuth targets have few cores; parsing is CPU-bound
TASKS_PER_WORKER = 200  # recycle workers so fragmentation never accumulates
_SLOT_POLL_S = 0.02


@dataclass(frozen=True, slots=True)
class SandboxLimits:
    memory_bytes: int = MEMORY_LIMIT_BYTES
    time_s: float = TIME_LIMIT_S
    workers: int = WORKERS


class _Died(Exception):
    def __init__(self, exitcode: int | None) -> None:
        super().__init__(f"worker exit {exitcode}")
        self.exitcode = exitcode


class _Worker:
    """One worker process and its pipe; used by one caller at a time."""

    def __init__(self, memory_bytes: int) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "sleuth.fetch.worker", str(memory_bytes)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,  # parsers complain about hostile input; not our output
            env=env,
        )
        self.tasks = 0
        self.killed = False

    def call(self, function: Callable[..., T], args: tuple[Any, ...]) -> T:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.tasks += 1
        try:
            send(self.process.stdin, pickle.dumps((function, args)))
            reply = receive(self.process.stdout)
        except (BrokenPipeError, ValueError, OSError):
            reply = None
        if reply is None:
            raise _Died(self.process.wait())
        ok, value = pickle.loads(reply)
        if ok:
            return value  # type: ignore[no-any-return]
        raise value

    def kill(self) -> None:
        self.killed = True
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()


class Sandbox:
    """A pool of extraction workers; safe to share between runs, threads and event loops."""

    def __init__(self, limits: SandboxLimits = SandboxLimits()) -> None:
        self.limits = limits
        self._slots = threading.BoundedSemaphore(max(1, limits.workers))
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._queue: list[tuple[int, int]] = []  # (size, arrival) of calls waiting for a slot
        self._tickets = itertools.count()

    async def run(self, function: Callable[..., T], *args: Any, size: int = 0) -> T:
        """`function(*args)` in a worker. Cancelling the awaiting task kills the worker.

        Waiting calls get a free worker smallest `size` first, so an ordinary page is not
        held behind hostile megabytes that will use up their time limit."""
        await self._acquire(size)
        worker = self._take()
        try:
            call = asyncio.to_thread(worker.call, function, args)
            return await asyncio.wait_for(call, self.limits.time_s)
        except TimeoutError:
            worker.kill()
            raise self._timeout() from None
        except BaseException as exc:
            # Cancelled, died or out of memory: kill it (the thread waiting on it returns at
            # once). An ordinary error raised by `function` leaves the worker fit for reuse.
            if not isinstance(exc, Exception) or _fatal(exc):
                worker.kill()
            raise _reraise(exc, self) from None
        finally:
            self._give_back(worker)
            self._slots.release()

    async def _acquire(self, size: int) -> None:
        # The slots are shared by threads and event loops, so no asyncio primitive can hold
        # them; polling keeps the wait cancellable, unlike a blocking acquire in a thread.
        ticket = (size, next(self._tickets))
        with self._lock:
            heapq.heappush(self._queue, ticket)
        try:
            while True:
                with self._lock:
                    if self._queue[0] == ticket and self._slots.acquire(blocking=False):
                        heapq.heappop(self._queue)
                        return
                await asyncio.sleep(_SLOT_POLL_S)
        except BaseException:
            with self._lock:
                self._queue.remove(ticket)
                heapq.heapify(self._queue)
            raise

    def run_sync(self, function: Callable[..., T], *args: Any) -> T:
        """The blocking form of `run`, for callers outside an event loop."""
        with self._slots:
            worker = self._take()
            timer = threading.Timer(self.limits.time_s, worker.kill)
            timer.start()
            try:
                return worker.call(function, args)
            except BaseException as exc:
                if timer.finished.is_set():
                    raise self._timeout() from None
                if not isinstance(exc, Exception) or _fatal(exc):
                    worker.kill()
                raise _reraise(exc, self) from None
            finally:
                timer.cancel()
                self._give_back(worker)

    def warm(self) -> None:
        """Start idle workers now, so the first page of a run does not wait for one to load
        its parsers (about a second); they load while the search runs."""
        with self._lock:
            missing = self.limits.workers - len(self._idle)
            self._idle.extend(_Worker(self.limits.memory_bytes) for _ in range(max(0, missing)))

    def close(self) -> None:
        """Stop the idle workers now (busy ones are stopped by their callers)."""
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.kill()

    def _take(self) -> _Worker:
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.process.poll() is None:
                    return worker
        return _Worker(self.limits.memory_bytes)

    def _give_back(self, worker: _Worker) -> None:
        if worker.killed or worker.tasks >= TASKS_PER_WORKER or worker.process.poll() is not None:
            worker.kill()
            return
        with self._lock:
            self._idle.append(worker)

    def _timeout(self) -> ExtractionError:
        return ExtractionError(f"extraction took longer than {self.limits.time_s:g}s; skipped")


def _fatal(exc: BaseException) -> bool:
    return isinstance(exc, _Died | MemoryError)


def _reraise(exc: BaseException, sandbox: Sandbox) -> BaseException:
    """What the caller sees: a typed ExtractionError for a dead or starved worker, else the
    error itself (a FetchError from the parser, a cancellation)."""
    if isinstance(exc, _Died):
        # PDFium aborts (SIGABRT) when an allocation fails under the memory limit, so a
        # death is most often a document too big to parse; any death reads the same.
        return ExtractionError(
            f"extraction ran out of memory or crashed (worker exit {exc.exitcode}); skipped"
        )
    if isinstance(exc, MemoryError):
        limit = sandbox.limits.memory_bytes // MB
        return ExtractionError(f"extraction needed more than {limit} MB; skipped")
    return exc


_SHARED = Sandbox()
atexit.register(_SHARED.close)


def shared_sandbox() -> Sandbox:
    """The process-wide sandbox every reader uses unless given its own."""
    return _SHARED
