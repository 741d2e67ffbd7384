"""pytest plugin: one test web per session, reset around every test that uses it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.testweb.server import TestWeb


@pytest.fixture(scope="session")
def testweb_server() -> Iterator[TestWeb]:
    web = TestWeb().start()
    yield web
    web.stop()


@pytest.fixture
def testweb(testweb_server: TestWeb) -> Iterator[TestWeb]:
    """The session's test web with the default site, no overrides and no hits recorded."""
    testweb_server.reset()
    yield testweb_server
    testweb_server.reset()  # also ends any request still hanging for this test


@pytest.fixture
def testweb_env(testweb: TestWeb, monkeypatch: pytest.MonkeyPatch) -> TestWeb:
    """The test web, with SLEUTH_SEARXNG_URL and the proxy variables pointing at it."""
    for name, value in testweb.env().items():
        monkeypatch.setenv(name, value)
    return testweb
