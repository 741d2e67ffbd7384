"""A research `schema` whose `pattern` backtracks catastrophically, checked against a model
reply a page could dictate, must cost at most that run: the server keeps answering meanwhile.
With Python's `re`, `^(a+)+$` against forty a's and a '!' runs for hours holding the GIL, so
`/healthz` stopped answering and the run limit never fired (issue 24)."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
import threading
from collections.abc import Iterator

import httpx

from tests.llm.fake_servers import FakeLLMServer, Received, Reply
from tests.server.harness import TESTWEB_DEFAULTS, serving
from tests.server.research_llm import prompt_of
from tests.testweb.server import TestWeb

QUESTION = "How long are Example Cloud audit logs retained by default?"
SCHEMA = {
    "type": "object",
    "properties": {"code": {"type": "string", "pattern": "^(a+)+$"}},
    "patternProperties": {"^x(a+)+$": {"type": "integer"}},
}
HOSTILE = '{"code": "' + "a" * 40 + '!", "x' + "a" * 40 + '!": "n"}'


def responder(structured: threading.Event) -> object:
    def reply(received: Received) -> Reply:
        prompt = prompt_of(received)
        if "did not validate" in prompt:
            return Reply(chunks=['{"code": "aaaa"}'])
        if "Fill the JSON Schema" in prompt:
            structured.set()
            return Reply(chunks=[HOSTILE])
        if "Classify a research question" in prompt:
            return Reply(chunks=['{"type": "single"}'])
        return Reply(chunks=["Audit logs are kept for 90 days [1]."])

    return reply


@pytest.fixture
def llm_and_flag() -> Iterator[tuple[FakeLLMServer, threading.Event]]:
    structured = threading.Event()
    server = FakeLLMServer("openai", responder(structured)).start()  # type: ignore[arg-type]
    yield server, structured
    server.stop()


@pytest.mark.timeout(120)
def test_a_catastrophic_pattern_costs_nothing_and_healthz_keeps_answering(
    testweb_env: TestWeb, llm_and_flag: tuple[FakeLLMServer, threading.Event]
) -> None:
    llm, structured = llm_and_flag
    defaults = {**TESTWEB_DEFAULTS, "base_url": llm.url, "api_key": "k", "model": "gpt-4o-mini"}
    outcome: dict[str, httpx.Response] = {}
    with serving(defaults=defaults) as served:
        key = served.key("acme")

        def research() -> None:
            outcome["run"] = httpx.post(
                f"{served.api}/orgs/acme/research",
                json={"query": QUESTION, "schema": SCHEMA},
                headers={"X-API-Key": key},
                timeout=90,
            )

        runner = threading.Thread(target=research)
        runner.start()
        assert structured.wait(60), "the run never asked the model to fill the schema"
        health = httpx.get(f"{served.base}/healthz", timeout=15)
        runner.join(90)
    assert health.status_code == 200
    run = outcome["run"]
    assert run.status_code == 200, run.text
    assert run.json()["data"] == {"code": "aaaa"}  # the repair came back and validated
    repair = prompt_of(llm.received[-1])
    assert "does not match '^(a+)+$'" in repair


def test_a_pattern_the_linear_engine_cannot_run_is_a_usage_error(testweb_env: TestWeb) -> None:
    schema = {"type": "object", "properties": {"c": {"type": "string", "pattern": "(a)\\1"}}}
    with serving() as served:
        got = httpx.post(
            f"{served.api}/orgs/acme/research",
            json={"query": QUESTION, "schema": schema},
            headers={"X-API-Key": served.key("acme")},
        )
    assert got.status_code == 400, got.text
    assert "back-references" in got.json()["error"] and got.json()["retryable"] is False
