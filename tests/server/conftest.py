"""Fixtures of the server tests."""

from __future__ import annotations

import os

import pytest

from sleuth.settings import database_url


@pytest.fixture
def service_backend(backend: str | None, monkeypatch: pytest.MonkeyPatch) -> str | None:
    """The test on SQLite, then on PostgreSQL: with SLEUTH_DATABASE_URL set, `serving()` and
    `sleuth serve` keep the service's state, the saved sessions and the page cache there."""
    if backend is not None:
        monkeypatch.setenv("SLEUTH_DATABASE_URL", backend)
    assert database_url(os.environ) == backend
    return backend
