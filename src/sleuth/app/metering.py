"""What the service does once instead of on every request: who an API key is, with its
organization's own model if it has one (looked up once every few seconds, not per request), and
how many answers came from the cache (counted in memory and written in one batch a second, off
the request path)."""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from ..errors import SleuthError
from ..recent import Recent
from ..store.service import KEY_PREFIX as KEY_PREFIX  # how a key's secret starts
from ..store.service import KeyStore, QuotaStore, UsageDay, UsageReport, hash_secret, usage_day
from .caller import Caller

KEY_CACHE_S = 5.0  # a revoked key is refused within this on every process
KEYS_KEPT = 10_000  # lookups remembered (unknown secrets too, so guessing costs no database)
FLUSH_S = 1.0  # cached answers are written to the usage this often


class KeyCache:
    def __init__(self, store: KeyStore, clock: Callable[[], float]) -> None:
        self.store, self.clock = store, clock
        # (caller,) per secret's digest; (None,) for a secret no key has
        self._known = Recent[str, tuple[Caller | None]](KEYS_KEPT, ttl_s=KEY_CACHE_S, clock=clock)

    async def caller(self, secret: str) -> Caller | None:
        digest = hash_secret(secret)
        known = self._known.get(digest)
        if known is None:
            asked = self.clock()  # a key revoked during the lookup is refused KEY_CACHE_S after
            known = self._known.put(digest, (await self._look_up(secret),), at=asked)
        return known[0]

    async def _look_up(self, secret: str) -> Caller | None:
        key = await self.store.key_for(secret)
        if key is None:
            return None
        org = await self.store.org(key.org)
        plan = org.plan if org is not None else "self-hosted"
        model = await self.store.org_model(key.org)
        return Caller(key.org, key.scopes, plan, key.id, "key", model)

    def forget(self) -> None:
        """Drop every remembered lookup (this process revoked or created a key)."""
        self._known.clear()


class CachedHits:
    """Answers served from the cache, per organization, written in batches."""

    def __init__(self, store: QuotaStore, clock: Callable[[], float]) -> None:
        self.store, self.clock = store, clock
        self._counts: Counter[str] = Counter()
        self._flusher: asyncio.Task[None] | None = None
        self.total = 0  # answers counted since start (a report made before is out of date)

    def count(self, org: str) -> None:
        self._counts[org] += 1
        self.total += 1
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.get_running_loop().create_task(self._flush_soon())

    def unwritten(self, org: str) -> int:
        """Answers counted for `org` and not handed to the store yet."""
        return self._counts.get(org, 0)

    async def _flush_soon(self) -> None:
        await asyncio.sleep(FLUSH_S)
        await self.flush()

    async def flush(self) -> None:
        """Write what was counted (what a cancelled flush did not write stays counted)."""
        pending, self._counts = list(self._counts.items()), Counter()
        try:
            while pending:
                org, n = pending[0]
                with contextlib.suppress(SleuthError):  # usage is a report: never fail on it
                    await self.store.count_cached(org, now=self.clock(), n=n)
                pending.pop(0)
        finally:
            for org, n in pending:
                self._counts[org] += n

    async def aclose(self) -> None:
        if self._flusher is not None and not self._flusher.done():
            self._flusher.cancel()
            await asyncio.gather(self._flusher, return_exceptions=True)
        await self.flush()


def with_unwritten(report: UsageReport, n: int, now: float) -> UsageReport:
    """`report` with `n` answers from the cache not written yet, on the day of `now` (UTC)."""
    if not n:
        return report
    today = usage_day(now)
    days = [replace(d, cached=d.cached + n) if d.day == today else d for d in report.days]
    if not any(d.day == today for d in report.days):
        days.append(UsageDay(today, cached=n))
    return replace(report, days=tuple(days))
