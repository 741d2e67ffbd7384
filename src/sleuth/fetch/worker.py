"""The extraction worker process: `python -m sleuth.fetch.worker MEMORY_BYTES`.

It caps its own address space, then answers calls read from stdin — each a length-prefixed
pickle of `(function, args)` — with a length-prefixed pickle of `(ok, value or exception)` on
stdout, until stdin closes. It is started as a plain subprocess, not through multiprocessing,
so it never imports the parent's `__main__` (a library user's unguarded script would otherwise
run again inside it).
"""

from __future__ import annotations

import pickle
import resource
import struct
import sys
from typing import IO, Any

HEADER = struct.Struct(">Q")


def send(stream: IO[bytes], payload: bytes) -> None:
    stream.write(HEADER.pack(len(payload)) + payload)
    stream.flush()


def receive(stream: IO[bytes]) -> bytes | None:
    """One message, or None at end of stream (the other side is gone)."""
    head = stream.read(HEADER.size)
    if len(head) < HEADER.size:
        return None
    (size,) = HEADER.unpack(head)
    body = stream.read(size)
    return body if len(body) == size else None


def _limit_memory(limit: int) -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _answer(call: bytes) -> bytes:
    try:
        function, args = pickle.loads(call)
        outcome: tuple[bool, Any] = (True, function(*args))
    except BaseException as exc:  # MemoryError included: the parent decides what it costs
        outcome = (False, exc)
    try:
        return pickle.dumps(outcome)
    except Exception as exc:  # an unpicklable exception or a result too big to copy
        return pickle.dumps((False, RuntimeError(f"{type(exc).__name__}: {exc}")))


def main() -> None:
    _limit_memory(int(sys.argv[1]))
    import sleuth.fetch.parse  # noqa: F401  (load the parsers before the first call)

    channel_in, channel_out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # whatever a parser prints must not corrupt the channel
    while (call := receive(channel_in)) is not None:
        send(channel_out, _answer(call))


if __name__ == "__main__":
    main()
