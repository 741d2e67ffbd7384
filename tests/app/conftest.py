from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from sleuth.store.service_sqlite import SqliteServiceStore


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteServiceStore]:
    """The service store on SQLite, closed after the test."""
    opened = SqliteServiceStore(tmp_path)
    yield opened
    await opened.aclose()
