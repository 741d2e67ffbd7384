"""Structured output through the Research API (issue 27, from the mission audit): Sleuth asks
the model for null where the sources are silent, so null is never what fails a run."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
import httpx

from tests.llm.fake_servers import FakeLLMServer, Received, Reply
from tests.server.harness import serving
from tests.testweb.server import TestWeb

# The Research API seed's own example schema: no field allows null.
SEED_SCHEMA = {
    "type": "object",
    "properties": {
        "default_retention_days": {"type": "integer"},
        "max_retention_days": {"type": "integer"},
        "export_formats": {"type": "array", "items": {"type": "string"}},
    },
}
QUERY = "Audit log retention and export options in Example Cloud"


def filler(data: str) -> Any:
    def reply(received: Received) -> Reply:
        prompt = str(received.body.get("messages", ""))
        if "Fill the JSON Schema" in prompt:
            return Reply(chunks=[data])
        return Reply(chunks=['{"type": "single"}'])

    return reply


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    server = FakeLLMServer("openai").start()
    monkeypatch.setenv("SLEUTH_BASE_URL", server.url)
    monkeypatch.setenv("SLEUTH_API_KEY", "test-key")
    yield server
    server.stop()


def research(schema: dict[str, Any]) -> httpx.Response:
    with serving() as served:
        headers = {"X-API-Key": served.key("acme")}
        body = {"query": QUERY, "schema": schema}
        return httpx.post(f"{served.api}/orgs/acme/research", json=body, headers=headers,
                          timeout=60)  # fmt: skip


def test_the_seeds_example_schema_accepts_null_for_what_the_sources_do_not_say(
    testweb_env: TestWeb, model: FakeLLMServer
) -> None:
    model.responder = filler(
        '{"default_retention_days": 90, "max_retention_days": null, "export_formats": null}'
    )
    answer = research(SEED_SCHEMA)
    assert answer.status_code == 200, answer.text  # was a 502 after the repair attempt
    assert answer.json()["data"] == {
        "default_retention_days": 90, "max_retention_days": None, "export_formats": None
    }  # fmt: skip
    fills = [r for r in model.received if "Fill the JSON Schema" in str(r.body)]
    assert len(fills) == 1  # accepted at once: no repair round for a null


def test_a_value_of_the_wrong_type_is_still_refused(
    testweb_env: TestWeb, model: FakeLLMServer
) -> None:
    model.responder = filler('{"default_retention_days": "ninety", "max_retention_days": null}')
    answer = research(SEED_SCHEMA)
    assert answer.status_code == 502, answer.text
    assert "default_retention_days: 'ninety' is not of type 'integer'" in answer.json()["error"]
