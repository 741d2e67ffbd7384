from __future__ import annotations

from collections.abc import Iterator

import pytest

from .replay import ReplayServer


@pytest.fixture
def replay() -> Iterator[ReplayServer]:
    with ReplayServer() as server:
        yield server


@pytest.fixture
def replay_env(replay: ReplayServer, monkeypatch: pytest.MonkeyPatch) -> ReplayServer:
    """The replay server with every backend's endpoint variable pointed at it."""
    for name, value in replay.env().items():
        monkeypatch.setenv(name, value)
    return replay
