"""Parse untrusted documents in worker processes that can be stopped.

Reading a page is bounded from the outside (size cap, deadlines), but parsing it is not: a 4 MB
PDF whose content stream inflates to 500 MB made PDFium take 7 GB and then abort the whole
process, and a page of 550,000 tiny paragraphs kept trafilatura busy for over a minute. A thread
cannot be stopped, so a cancelled read used to leave its extraction running and the process
waited for it at exit. Here each extraction runs in a pebble worker with an address-space limit
and a time limit: a worker that runs out of memory, crashes, overruns its time or whose caller
was cancelled is killed and replaced, and the caller gets an `ExtractionError` with the reason.

Workers fork from a forkserver that has already imported the parsers, so a fresh worker is
cheap and never inherits the threads of the process that asked for it.
"""

from __future__ import annotations

import asyncio
import atexit
import multiprocessing
import resource
import threading
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any, TypeVar

import pebble

from ..errors import ExtractionError

T = TypeVar("T")
MB = 1024 * 1024
# Address space per worker. An idle worker with trafilatura, lxml and PDFium loaded maps about
# 300 MB; the rest is for the document. Ordinary pages need far less than this.
MEMORY_LIMIT_BYTES = 1024 * MB
TIME_LIMIT_S = 20.0
WORKERS = 2  # the machines Sleuth targets have few cores; parsing is CPU-bound
TASKS_PER_WORKER = 200  # recycle workers so fragmentation never accumulates
_PRELOAD = ["sleuth.fetch.extract", "sleuth.fetch.pdf", "sleuth.fetch.http"]


@dataclass(frozen=True, slots=True)
class SandboxLimits:
    memory_bytes: int = MEMORY_LIMIT_BYTES
    time_s: float = TIME_LIMIT_S
    workers: int = WORKERS


class Sandbox:
    """A pool of extraction workers; safe to share between runs and threads."""

    def __init__(self, limits: SandboxLimits = SandboxLimits()) -> None:
        self.limits = limits
        self._lock = threading.Lock()
        self._pool: pebble.ProcessPool | None = None

    def submit(self, function: Callable[..., T], *args: Any) -> pebble.ProcessFuture[T]:
        return self._ensure_pool().schedule(function, args, timeout=self.limits.time_s)

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """`function(*args)` in a worker. Cancelling the awaiting task kills the worker."""
        future = self.submit(function, *args)
        try:
            return await asyncio.wrap_future(future)
        except (FutureTimeout, TimeoutError) as exc:
            raise self._timeout() from exc
        except pebble.ProcessExpired as exc:
            raise _expired(exc) from exc
        except MemoryError as exc:
            raise self._out_of_memory() from exc

    def run_sync(self, function: Callable[..., T], *args: Any) -> T:
        """The blocking form of `run`, for callers outside an event loop."""
        future = self.submit(function, *args)
        try:
            return future.result()
        except FutureTimeout as exc:
            raise self._timeout() from exc
        except pebble.ProcessExpired as exc:
            raise _expired(exc) from exc
        except MemoryError as exc:
            raise self._out_of_memory() from exc

    def close(self) -> None:
        """Stop every worker now; a later `run` starts a new pool."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.stop()  # type: ignore[no-untyped-call]
            pool.join()

    def _ensure_pool(self) -> pebble.ProcessPool:
        with self._lock:
            if self._pool is None or not self._pool.active:
                self._pool = pebble.ProcessPool(
                    max_workers=self.limits.workers,
                    max_tasks=TASKS_PER_WORKER,
                    initializer=_limit_memory,
                    initargs=(self.limits.memory_bytes,),
                    context=_context(),
                )
            return self._pool

    def _timeout(self) -> ExtractionError:
        return ExtractionError(f"extraction took longer than {self.limits.time_s:g}s; skipped")

    def _out_of_memory(self) -> ExtractionError:
        return ExtractionError(
            f"extraction needed more than {self.limits.memory_bytes // MB} MB; skipped"
        )


def _expired(exc: pebble.ProcessExpired) -> ExtractionError:
    # PDFium aborts (SIGABRT) when an allocation fails under the worker's memory limit, so a
    # crash is most often a document too big to parse; any death is reported the same way.
    return ExtractionError(
        f"extraction ran out of memory or crashed (worker exit {exc.exitcode}); skipped"
    )


def _limit_memory(limit: int) -> None:
    """Worker initializer: cap this worker's address space so a bomb fails here, not the host."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


_CONTEXT: Any = None


def _context() -> Any:
    global _CONTEXT
    if _CONTEXT is None:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(_PRELOAD)
        _CONTEXT = context
    return _CONTEXT


_SHARED = Sandbox()
# Before pebble's own exit hook (atexit runs last-registered first): stop the workers while the
# pool can still shut down in order, so no replacement worker starts during interpreter exit.
atexit.register(_SHARED.close)


def shared_sandbox() -> Sandbox:
    """The process-wide sandbox every reader uses unless given its own."""
    return _SHARED
