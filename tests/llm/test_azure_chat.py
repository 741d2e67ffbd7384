"""Azure OpenAI through the real `openai` SDK's Azure client against a loopback server speaking
Chat Completions at Azure's deployment URLs."""

from __future__ import annotations

import uuid

import pytest

from sleuth.errors import LLMError
from sleuth.llm.azure_chat import AzureChat
from sleuth.llm.meter import Meter
from sleuth.ports import TokenUsage

from .fake_servers import FakeLLMServer, Reply
from .helpers import QUESTION, Sleeps, collect, collect_all, fresh_keys

VERSION = "2024-10-21"


def chat(
    server: FakeLLMServer,
    sleeps: Sleeps,
    keys: tuple[str, ...] = (),
    token: str | None = None,
    meter: Meter | None = None,
) -> AzureChat:
    return AzureChat(
        "writer",
        () if token else keys or fresh_keys(1),
        server.root,
        2.0,
        sleeps.policy(),
        meter,
        api_version=VERSION,
        entra_token=token,
    )


async def test_streams_from_the_deployment_with_the_api_key_header(
    openai_server: FakeLLMServer,
) -> None:
    openai_server.script(Reply(chunks=["The sky ", "is blue."], usage=(40, 9)))
    keys = fresh_keys(1)
    texts, usage = await collect(
        chat(openai_server, Sleeps(), keys).stream(QUESTION, max_tokens=99)
    )
    assert texts == ["The sky ", "is blue."]
    assert usage == TokenUsage("writer", 40, 9)
    received = openai_server.received[0]
    assert received.path == f"/openai/deployments/writer/chat/completions?api-version={VERSION}"
    assert received.headers["api-key"] == keys[0]
    assert "authorization" not in received.headers
    assert received.body["stream_options"] == {"include_usage": True}
    assert received.body["max_completion_tokens"] == 99


async def test_an_entra_token_is_sent_as_a_bearer_token(openai_server: FakeLLMServer) -> None:
    token = f"eyJ0eXAiOiJKV1Qi.{uuid.uuid4().hex}"
    openai_server.script(Reply(chunks=["ok"]))
    await collect(chat(openai_server, Sleeps(), token=token).stream(QUESTION))
    headers = openai_server.received[0].headers
    assert headers["authorization"] == f"Bearer {token}"
    assert "api-key" not in headers


async def test_usage_is_counted_and_priced_as_the_model_the_reply_names(
    openai_server: FakeLLMServer,
) -> None:
    meter = Meter()
    openai_server.script(
        Reply(chunks=["a"], usage=(1_000_000, 1_000_000), model="gpt-4o-mini-2024-07-18")
    )
    await collect(chat(openai_server, Sleeps(), meter=meter).stream(QUESTION))
    usage = meter.by_model()["gpt-4o-mini-2024-07-18"]
    assert usage.cost_usd == pytest.approx(0.15 + 0.60)


async def test_reasoning_is_kept_apart(openai_server: FakeLLMServer) -> None:
    openai_server.script(Reply(reasoning=["hmm"], chunks=["Answer."]))
    texts, thoughts, _ = await collect_all(chat(openai_server, Sleeps()).stream(QUESTION))
    assert (texts, thoughts) == (["Answer."], ["hmm"])


async def test_429_with_retry_after_then_success(openai_server: FakeLLMServer) -> None:
    openai_server.script(
        Reply(status=429, error="Requests to the ChatCompletions_Create Operation have exceeded "
              "call rate limit", headers={"Retry-After": "4"}),
        Reply(chunks=["ok"]),
    )  # fmt: skip
    sleeps = Sleeps()
    texts, _ = await collect(chat(openai_server, sleeps).stream(QUESTION))
    assert texts == ["ok"]
    assert sleeps.waits == [4.0]


async def test_401_fails_at_once_with_a_clear_message(openai_server: FakeLLMServer) -> None:
    openai_server.script(
        Reply(status=401, error="Access denied due to invalid subscription key or wrong API "
              "endpoint.")
    )  # fmt: skip
    sleeps = Sleeps()
    with pytest.raises(LLMError) as info:
        await collect(chat(openai_server, sleeps).stream(QUESTION))
    message = str(info.value)
    assert message.startswith("writer at http://127.0.0.1:")
    assert message.endswith("refused: 401 Access denied due to invalid subscription key or wrong "
                            "API endpoint.")  # fmt: skip
    assert info.value.retryable is False
    assert sleeps.waits == []


async def test_a_rejected_entra_token_never_shows_in_the_error(
    openai_server: FakeLLMServer,
) -> None:
    token = f"eyJ0eXAiOiJKV1Qi.{uuid.uuid4().hex}"
    openai_server.script(Reply(status=401, error=f"Token {token} is expired"))
    with pytest.raises(LLMError) as info:
        await collect(chat(openai_server, Sleeps(), token=token).stream(QUESTION))
    assert token not in str(info.value)
    assert "refused: 401" in str(info.value)


async def test_a_malformed_reply_is_an_llm_error_not_a_crash(
    openai_server: FakeLLMServer,
) -> None:
    openai_server.script(Reply(raw="data: {this is not json\n\n"))
    with pytest.raises(LLMError, match="LLM call failed"):
        await collect(chat(openai_server, Sleeps()).stream(QUESTION))
