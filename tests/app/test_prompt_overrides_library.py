"""The library takes the same per-stage overrides as the web-app dialect: a steered run's
clarifying questions and a quick answer's writer get the requester's instructions in place of
Sleuth's, and the answer's citations are still checked."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from sleuth.app.application import Sleuth
from sleuth.settings import Settings
from sleuth.types import PromptOverrides
from tests.llm.fake_servers import FakeLLMServer, Received, Reply
from tests.server.research_llm import cited_number

Q = "How long does Example Cloud keep audit logs by default?"
MINE = PromptOverrides(
    clarify="ASK: only about the region.",
    task="TASK: one line for a manager.",
    citing="CITING: do not cite.",
)


def model(request: Received) -> Reply:
    prompt = " ".join(str(m.get("content", "")) for m in request.body["messages"])
    if "<sources>" in prompt:
        n = cited_number(prompt)
        return Reply(chunks=[f"Audit logs are kept for 90 days [{n}]. Cheese is blue [{n}]."])
    if "Reply with a JSON array of strings only" in prompt and "ASK:" in prompt:
        return Reply(chunks=[json.dumps(["Which region?"])])
    return Reply(chunks=["[]"])


@pytest.fixture
def llm() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer("openai", responder=model).start()
    yield server
    server.stop()


async def test_library_runs_take_prompt_overrides(testweb_env: object, llm: FakeLLMServer) -> None:
    values = {"base_url": llm.url, "api_key": "k", "model": "m", "search": "searxng",
              "search_fallback": "none", "prompt_overrides": MINE}  # fmt: skip
    async with Sleuth(Settings.from_env()) as app:
        state = await app.steer(Q, **values)
        assert state.questions == ("Which region?",)
        result = await app.ask(Q, **values)
    writer = next(r for r in llm.received if "<sources>" in json.dumps(r.body))
    system, user = (m["content"] for m in writer.body["messages"])
    assert "CITING: do not cite." in system and "Rules (Sleuth's own" in system
    assert "TASK: one line for a manager." in user and "Write a direct" not in user
    assert [u.sentence for u in result.verification.unsupported] == ["Cheese is blue."]
