"""Gemini through the real google-genai SDK against a loopback `streamGenerateContent` server."""

from __future__ import annotations

import re

import pytest

from sleuth.errors import LLMError
from sleuth.llm.gemini_chat import GeminiChat
from sleuth.llm.meter import Meter
from sleuth.ports import Message, TokenUsage

from .fake_servers import FakeLLMServer, Reply
from .helpers import QUESTION, Sleeps, collect, collect_all, fresh_keys

RETRY_INFO = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "7s"}
KEY_INVALID = {
    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
    "reason": "API_KEY_INVALID",
    "domain": "googleapis.com",
}


def chat(
    server: FakeLLMServer,
    sleeps: Sleeps,
    keys: tuple[str, ...] = (),
    model: str = "gemini-2.5-flash",
    meter: Meter | None = None,
) -> GeminiChat:
    return GeminiChat(model, keys or fresh_keys(1), server.url, 2.0, sleeps.policy(), meter)


async def test_streams_text_then_usage_with_thinking_tokens_as_output(
    gemini_server: FakeLLMServer,
) -> None:
    gemini_server.script(
        Reply(chunks=["The sky ", "scatters ", "blue light."], usage=(40, 9), thought_tokens=30)
    )
    keys = fresh_keys(1)
    model = chat(gemini_server, Sleeps(), keys)
    texts, usage = await collect(model.stream(QUESTION, max_tokens=99))
    assert texts == ["The sky ", "scatters ", "blue light."]
    assert usage == TokenUsage("gemini-2.5-flash", 40, 39)
    received = gemini_server.received[0]
    assert re.fullmatch(
        r"/v1(beta)?/models/gemini-2.5-flash:streamGenerateContent\?alt=sse", received.path
    )
    assert received.key == keys[0]
    body = received.body
    assert body["systemInstruction"]["parts"] == [{"text": "You answer from sources."}]
    assert body["contents"] == [{"role": "user", "parts": [{"text": "Why is the sky blue?"}]}]
    assert body["generationConfig"]["maxOutputTokens"] == 99
    # The SDK spells the field in snake case; the API's JSON parser takes either spelling.
    thinking = body["generationConfig"]["thinkingConfig"]
    assert thinking in ({"includeThoughts": True}, {"include_thoughts": True})


async def test_thought_parts_are_reasoning_not_answer_text(gemini_server: FakeLLMServer) -> None:
    gemini_server.script(Reply(reasoning=["Rayleigh ", "scattering"], chunks=["Blue light."]))
    texts, thoughts, _ = await collect_all(chat(gemini_server, Sleeps()).stream(QUESTION))
    assert "".join(texts) == "Blue light."
    assert thoughts == ["Rayleigh ", "scattering"]


async def test_assistant_turns_are_model_turns_and_older_models_get_no_thinking_config(
    gemini_server: FakeLLMServer,
) -> None:
    gemini_server.script(Reply(chunks=["ok"]))
    turns = [*QUESTION, Message("assistant", "Rayleigh."), Message("user", "More?")]
    await collect(chat(gemini_server, Sleeps(), model="gemini-2.0-flash").stream(turns))
    body = gemini_server.received[0].body
    assert [c["role"] for c in body["contents"]] == ["user", "model", "user"]
    assert "thinkingConfig" not in body["generationConfig"]


async def test_429_with_retry_after_then_success(gemini_server: FakeLLMServer) -> None:
    gemini_server.script(
        Reply(status=429, error="Resource exhausted", headers={"Retry-After": "3"}),
        Reply(chunks=["ok"]),
    )
    sleeps = Sleeps()
    texts, _ = await collect(chat(gemini_server, sleeps).stream(QUESTION))
    assert texts == ["ok"]
    assert sleeps.waits == [3.0]


async def test_429_waits_as_long_as_the_retry_info_detail_says(
    gemini_server: FakeLLMServer,
) -> None:
    gemini_server.script(
        Reply(status=429, error="You exceeded your current quota", details=[RETRY_INFO]),
        Reply(chunks=["ok"]),
    )
    sleeps = Sleeps()
    texts, _ = await collect(chat(gemini_server, sleeps).stream(QUESTION))
    assert texts == ["ok"]
    assert sleeps.waits == [7.0]


@pytest.mark.parametrize("status", [401, 403])
async def test_refusals_fail_at_once_with_a_clear_message(
    gemini_server: FakeLLMServer, status: int
) -> None:
    gemini_server.script(Reply(status=status, error="Method doesn't allow unregistered callers"))
    sleeps = Sleeps()
    with pytest.raises(LLMError) as info:
        await collect(chat(gemini_server, sleeps).stream(QUESTION))
    message = str(info.value)
    assert message.startswith("gemini-2.5-flash at http://127.0.0.1:"), "names the endpoint"
    assert message.endswith(f"refused: {status} Method doesn't allow unregistered callers")
    assert info.value.retryable is False
    assert sleeps.waits == []
    assert len(gemini_server.received) == 1


async def test_an_invalid_key_400_drops_the_key_and_tries_the_next(
    gemini_server: FakeLLMServer,
) -> None:
    keys = fresh_keys(2)
    gemini_server.script(
        Reply(status=400, error="API key not valid. Please pass a valid API key.",
              details=[KEY_INVALID]),
        Reply(chunks=["ok"]),
    )  # fmt: skip
    texts, _ = await collect(chat(gemini_server, Sleeps(), keys).stream(QUESTION))
    assert texts == ["ok"]
    assert [r.key for r in gemini_server.received] == [keys[0], keys[1]]


async def test_500_then_success_backs_off(gemini_server: FakeLLMServer) -> None:
    gemini_server.script(Reply(status=503, error="overloaded"), Reply(chunks=["fine"]))
    sleeps = Sleeps()
    texts, _ = await collect(chat(gemini_server, sleeps).stream(QUESTION))
    assert texts == ["fine"]
    assert len(sleeps.waits) == 1


async def test_a_malformed_reply_is_an_llm_error_not_a_crash(
    gemini_server: FakeLLMServer,
) -> None:
    gemini_server.script(Reply(raw="data: {this is not json\r\n\r\n"))
    with pytest.raises(LLMError, match="LLM call failed"):
        await collect(chat(gemini_server, Sleeps()).stream(QUESTION))


async def test_an_error_object_inside_the_stream_is_retried(gemini_server: FakeLLMServer) -> None:
    gemini_server.script(
        Reply(raw='data: {"error": {"code": 503, "message": "overloaded", "status": '
                  '"UNAVAILABLE"}}\r\n\r\n'),
        Reply(chunks=["recovered"]),
    )  # fmt: skip
    texts, _ = await collect(chat(gemini_server, Sleeps()).stream(QUESTION))
    assert texts == ["recovered"]


async def test_a_blocked_prompt_is_refused_not_retried(gemini_server: FakeLLMServer) -> None:
    gemini_server.script(
        Reply(raw='data: {"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": '
                  '{"promptTokenCount": 5, "totalTokenCount": 5}}\r\n\r\n')
    )  # fmt: skip
    with pytest.raises(LLMError, match=r"refused the prompt: blocked \(SAFETY\)") as info:
        await collect(chat(gemini_server, Sleeps()).stream(QUESTION))
    assert info.value.retryable is False


async def test_meter_prices_gemini_tokens(gemini_server: FakeLLMServer) -> None:
    meter = Meter()
    gemini_server.script(Reply(chunks=["a"], usage=(1_000_000, 0), thought_tokens=1_000_000))
    await collect(chat(gemini_server, Sleeps(), meter=meter).stream(QUESTION))
    usage = meter.by_model()["gemini-2.5-flash"]
    assert (usage.input_tokens, usage.output_tokens) == (1_000_000, 1_000_000)
    assert usage.cost_usd == pytest.approx(0.30 + 2.50)
