from __future__ import annotations

from collections.abc import Iterator

import pytest

from .fake_servers import FakeLLMServer


@pytest.fixture
def openai_server() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer("openai").start()
    yield server
    server.stop()


@pytest.fixture
def anthropic_server() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer("anthropic").start()
    yield server
    server.stop()


@pytest.fixture
def gemini_server() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer("google").start()
    yield server
    server.stop()
