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

from collections import OrderedDict
from dataclasses import dataclass

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
        self._seen: OrderedDict[str, _Record] = OrderedDict()

    def wait(self, address: str) -> float | None:
        """Seconds `address` must still wait before a try is looked at; None: go ahead."""
        record = self._seen.get(address)
        if record is None:
            return None
        now = self.clock()
        if now - record.last >= FORGET_S:
            del self._seen[address]
            return None
        left = record.last + delay(record.failures) - now
        return left if left > 0 else None

    def failed(self, address: str) -> None:
        record = self._seen.pop(address, None) or _Record(0, 0.0)
        record.failures, record.last = record.failures + 1, self.clock()
        self._seen[address] = record
        while len(self._seen) > MAX_ADDRESSES:
            self._seen.popitem(last=False)

    def succeeded(self, address: str) -> None:
        self._seen.pop(address, None)


def delay(failures: int) -> float:
    """How long after its last failure an address with `failures` may try again."""
    if failures <= FREE:
        return 0.0
    return min(CAP_S, 2.0 ** (failures - FREE - 1))
