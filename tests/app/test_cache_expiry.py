"""An answer read from the result cache into a process's memory expires when the stored entry
does, not a full `result_cache_ttl` after it was read: before, an entry cached 9 minutes
earlier could be served from memory for 10 more."""

from __future__ import annotations

from sleuth.app.admission import Policy
from sleuth.app.caller import Caller
from sleuth.app.service import Service
from sleuth.store.service_sqlite import SqliteServiceStore

ACME = Caller("acme", how="key")
NOW = 1_800_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


async def test_a_cached_answer_kept_in_memory_expires_with_its_stored_entry(
    store: SqliteServiceStore,
) -> None:
    clock = Clock()
    service = Service(object(), store, Policy(result_ttl_s=600), clock=clock)  # type: ignore[arg-type]
    await store.cache("acme", "fp", b'{"answer": 1}', now=NOW - 590)  # cached 590 s ago
    assert await service._hit(ACME, "fp") == b'{"answer": 1}'  # read into memory now
    clock.now += 20  # 610 s after it was cached
    assert await service._hit(ACME, "fp") is None
    await service.aclose()
