"""The SQLite page cache and the caching fetcher."""

from __future__ import annotations

from pathlib import Path

import pytest

from sleuth.errors import FetchError
from sleuth.fetch import CachedFetcher, SqlitePageCache, default_cache_path
from sleuth.types import Page


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


class CountingFetcher:
    """A fake at the Fetcher boundary: serves a fixed page and counts calls."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.closed = False

    async def fetch(self, url: str) -> Page:
        self.calls.append(url)
        if "broken" in url:
            raise FetchError("http 500", url)
        return Page(
            url=url,
            title="T",
            text=f"text #{len(self.calls)}",
            fetched_at="2024-01-01T00:00:00+00:00",
            published="2023-12-31",
        )

    async def aclose(self) -> None:
        self.closed = True


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def cache(sleuth_home: Path, clock: Clock) -> SqlitePageCache:
    return SqlitePageCache(default_cache_path(sleuth_home), ttl_s=3600, clock=clock)


async def test_second_fetch_is_served_from_cache(cache: SqlitePageCache) -> None:
    inner = CountingFetcher()
    fetcher = CachedFetcher(inner, cache)
    first = await fetcher.fetch("http://a.example/")
    second = await fetcher.fetch("http://a.example/")
    assert inner.calls == ["http://a.example/"]
    assert not first.from_cache
    assert second.from_cache
    assert (second.text, second.published) == (first.text, first.published)


async def test_entry_expires_after_ttl(cache: SqlitePageCache, clock: Clock) -> None:
    inner = CountingFetcher()
    fetcher = CachedFetcher(inner, cache)
    await fetcher.fetch("http://a.example/")
    clock.now += 3599
    assert (await fetcher.fetch("http://a.example/")).from_cache
    clock.now += 2
    page = await fetcher.fetch("http://a.example/")
    assert not page.from_cache
    assert len(inner.calls) == 2


async def test_no_cache_bypasses_reads_but_still_stores(cache: SqlitePageCache) -> None:
    inner = CountingFetcher()
    await CachedFetcher(inner, cache).fetch("http://a.example/")
    fresh = await CachedFetcher(inner, cache, refresh=True).fetch("http://a.example/")
    assert not fresh.from_cache
    assert len(inner.calls) == 2
    assert cache.get("http://a.example/") == fresh


async def test_failures_are_not_cached(cache: SqlitePageCache) -> None:
    inner = CountingFetcher()
    fetcher = CachedFetcher(inner, cache)
    for _ in range(2):
        with pytest.raises(FetchError):
            await fetcher.fetch("http://broken.example/")
    assert len(inner.calls) == 2


def test_cache_is_shared_through_the_file(sleuth_home: Path, clock: Clock) -> None:
    path = default_cache_path(sleuth_home)
    page = Page(
        url="http://a.example/", title="T", text="x", fetched_at="2024-01-01T00:00:00+00:00"
    )
    SqlitePageCache(path, clock=clock).put(page)
    assert SqlitePageCache(path, clock=clock).get("http://a.example/") == page
    assert path.is_relative_to(sleuth_home)


def test_prune_removes_expired(cache: SqlitePageCache, clock: Clock) -> None:
    cache.put(Page(url="http://old.example/", title="", text="x", fetched_at=""))
    clock.now += 7200
    cache.put(Page(url="http://new.example/", title="", text="y", fetched_at=""))
    assert cache.prune() == 1
    assert cache.get("http://new.example/") is not None


async def test_aclose_reaches_the_inner_fetcher(cache: SqlitePageCache) -> None:
    inner = CountingFetcher()
    await CachedFetcher(inner, cache).aclose()
    assert inner.closed
