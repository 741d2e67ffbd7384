"""Login throttling: each client address that keeps getting the password wrong waits longer.

The first few mistakes cost nothing (typos); after them an address must wait 1 s, then 2, 4,
8 ... up to a minute before its next try is even looked at — right or wrong, or a guess would
slip through between waits. A success clears the address; so do 15 quiet minutes. The same
throttle counts the login form and the password sent as `Authorization: Bearer` to the API,
so neither is a faster way to guess. At most `MAX_ADDRESSES` are remembered (oldest dropped),
so a flood of addresses cannot grow it without bound. Per process: with several workers, each
keeps its own count.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..recent import Recent
from .config import Clock

FREE = 3
CAP_S = 60.0
FORGET_S = 15 * 60.0
MAX_ADDRESSES = 10_000


@dataclass(slots=True)
class _Record:
    failures: int
    last: float


class Throttle:
    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._seen = Recent[str, _Record](MAX_ADDRESSES, ttl_s=FORGET_S, clock=clock)

    def wait(self, address: str) -> float | None:
        """Seconds `address` must still wait before a try is looked at; None: go ahead."""
        record = self._seen.get(address)  # forgotten FORGET_S after its last failure
        if record is None:
            return None
        left = record.last + delay(record.failures) - self.clock()
        return left if left > 0 else None

    def failed(self, address: str) -> None:
        record = self._seen.get(address) or _Record(0, 0.0)
        record.failures, record.last = record.failures + 1, self.clock()
        self._seen.put(address, record, at=record.last)

    def succeeded(self, address: str) -> None:
        self._seen.pop(address)


def delay(failures: int) -> float:
    """How long after its last failure an address with `failures` may try again."""
    if failures <= FREE:
        return 0.0
    return min(CAP_S, 2.0 ** (failures - FREE - 1))
