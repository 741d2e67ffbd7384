"""A bounded memory of recent entries, each kept for a while: what a long-running process
remembers to spare work (prepared runs, cached answers, searches, listings, key lookups, graphs,
failed sign-ins). Past `size` entries the least recently used is forgotten; with `ttl_s`, an
entry older than that is gone too.

    bodies = Recent[str, bytes](256, ttl_s=600, clock=time.monotonic)
    bodies.put(key, body)
    bodies.get(key)  # the body, or None once 600 s have passed since the put
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Recent(Generic[K, V]):
    def __init__(
        self, size: int, *, ttl_s: float | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.size, self.ttl_s, self.clock = size, ttl_s, clock
        self._entries: OrderedDict[K, tuple[V, float]] = OrderedDict()

    def get(self, key: K) -> V | None:
        """The entry, now the most recently used; None if it is not here or has expired."""
        found = self._entries.get(key)
        if found is None:
            return None
        if self.ttl_s is not None and self.clock() - found[1] >= self.ttl_s:
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return found[0]

    def put(self, key: K, value: V, *, at: float | None = None) -> V:
        """Remember `value`, as of `at` (the clock's now by default: an entry from a store may
        be older than the moment it is remembered)."""
        self._entries[key] = (value, self.clock() if at is None else at)
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)
        return value

    def pop(self, key: K) -> V | None:
        found = self._entries.pop(key, None)
        return None if found is None else found[0]

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
