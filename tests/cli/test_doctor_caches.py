"""`sleuth doctor` measures each cache Sleuth keeps (the page cache in its folder, the
server's result cache): entries, bytes, the age of the oldest and newest entry; a cache folder
that cannot be written fails."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from sleuth.app.doctor import storage
from sleuth.fetch.cache import SqlitePageCache
from sleuth.settings import Settings
from sleuth.store.service_sqlite import SqliteServiceStore
from sleuth.types import Page
from tests.cli.helpers import run


def fill_caches(home: Path, pages: Path, now: float) -> None:
    for url, age in (("http://a.example/1", 7200.0), ("http://a.example/2", 600.0)):
        cache = SqlitePageCache(pages / "cache.db", clock=lambda age=age: now - age)
        cache.put(Page(url=url, title="t", text="x" * 1000, fetched_at="2026-01-01T00:00:00Z"))

    async def cache_a_result() -> None:
        results = SqliteServiceStore(home)
        await results.cache("org", "fp-1", b"y" * 2500, now=now - 300)
        await results.aclose()

    asyncio.run(cache_a_result())


def test_doctor_measures_each_cache(tmp_path: Path, sleuth_home: Path) -> None:
    now = time.time()
    pages = tmp_path / "pages"
    fill_caches(sleuth_home, pages, now)
    settings = Settings(cache_dir=str(pages), cache_ttl=3 * 3600.0)
    checks = {c.name: c for c in storage(sleuth_home, settings, now)}
    assert checks["dir"].status == "ok" and checks["dir"].detail == str(pages)
    page = checks["pages"].detail
    assert page.startswith("2 entries · 2.") and "kB" in page, page
    assert "oldest 2h ago · newest 10min ago · kept 3h" in page and str(pages) in page, page
    result = checks["results"].detail
    assert result.startswith("1 entry · 2.5 kB · oldest 5min ago · newest 5min ago"), result


def test_doctor_shows_cache_sizes_and_fails_an_unwritable_cache_folder(
    tmp_path: Path, sleuth_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pages = tmp_path / "pages"
    fill_caches(sleuth_home, pages, time.time())
    code, out, err = run(["doctor", "--search=none", f"--cache-dir={pages}", "--json"], capsys)
    assert out, err
    checks = {(c["section"], c["name"]): c for c in json.loads(out)["checks"]}
    assert checks[("cache", "pages")]["detail"].startswith("2 entries")
    assert checks[("cache", "results")]["detail"].startswith("1 entry")
    blocker = tmp_path / "a-file"
    blocker.write_text("keep me")
    code, out, _ = run(["doctor", "--search=none", f"--cache-dir={blocker}", "--json"], capsys)
    dir_check = next(c for c in json.loads(out)["checks"] if c["name"] == "dir")
    assert code == 1 and dir_check["status"] == "fail" and "not writable" in dir_check["detail"]
    assert blocker.read_text() == "keep me"


async def test_doctor_measures_the_caches_in_postgresql(postgres_db: str) -> None:
    from sleuth.store.page_cache_pg import PgPageCache
    from sleuth.store.service_pg import PgServiceStore

    now = time.time()
    settings = Settings(env={"SLEUTH_DATABASE_URL": postgres_db})
    checks = {c.name: c.detail for c in storage(Path("/nonexistent-home"), settings, now)}
    assert checks["pages"] == checks["results"] == "empty (PostgreSQL: not created yet)"
    pages = PgPageCache(postgres_db, clock=lambda: now - 7200)
    pages.put(Page(url="http://a.example/1", title="t", text="é" * 500, fetched_at="2026"))
    service = PgServiceStore(postgres_db)
    await service.cache("org", "fp-1", b"y" * 2500, now=now - 300)
    await service.aclose()
    checks = {c.name: c.detail for c in storage(Path("/nonexistent-home"), settings, now)}
    assert checks["pages"].startswith("1 entry · 3.") and "oldest 2h ago" in checks["pages"]
    assert checks["results"].startswith("1 entry · 2.5 kB · oldest 5min ago")
    assert checks["results"].endswith("(PostgreSQL)")
