from __future__ import annotations

from collections.abc import Iterator

import pytest

from .replay import ReplayServer


@pytest.fixture
def replay() -> Iterator[ReplayServer]:
    with ReplayServer() as server:
        yield server
