from __future__ import annotations

import pytest

from sleuth.errors import LLMError
from sleuth.llm.anthropic_chat import AnthropicChat
from sleuth.llm.meter import Meter
from sleuth.ports import Message, TokenUsage

from .fake_servers import FakeLLMServer, Reply
from .helpers import QUESTION, Sleeps, collect, collect_all, fresh_keys


def chat(server: FakeLLMServer, sleeps: Sleeps, keys: tuple[str, ...] = ()) -> AnthropicChat:
    return AnthropicChat(
        "claude-sonnet-4-6", keys or fresh_keys(1), server.url, 2.0, sleeps.policy(), Meter()
    )


async def test_streams_text_deltas_and_usage_from_message_events(
    anthropic_server: FakeLLMServer,
) -> None:
    anthropic_server.script(Reply(chunks=["Rayleigh ", "scattering."], usage=(321, 12)))
    texts, usage = await collect(chat(anthropic_server, Sleeps()).stream(QUESTION, max_tokens=50))
    assert texts == ["Rayleigh ", "scattering."]
    assert usage == TokenUsage("claude-sonnet-4-6", 321, 12)
    received = anthropic_server.received[0]
    assert received.path == "/v1/messages"
    assert received.body["system"] == "You answer from sources."
    assert received.body["messages"] == [{"role": "user", "content": "Why is the sky blue?"}]
    assert received.body["max_tokens"] == 50


async def test_no_system_prompt_sends_no_system_field(anthropic_server: FakeLLMServer) -> None:
    anthropic_server.script(Reply(chunks=["hi"]))
    await collect(chat(anthropic_server, Sleeps()).stream([Message("user", "hello")]))
    assert "system" not in anthropic_server.received[0].body


async def test_thinking_tags_split_across_deltas_are_reasoning_not_text(
    anthropic_server: FakeLLMServer,
) -> None:
    anthropic_server.script(Reply(chunks=["<thinking>plan the ", "answer</thinki", "ng>Blue [1]."]))
    texts, thoughts, _ = await collect_all(chat(anthropic_server, Sleeps()).stream(QUESTION))
    assert "".join(texts) == "Blue [1]."
    assert "".join(thoughts) == "plan the answer"


async def test_extended_thinking_blocks_are_reasoning_not_text(
    anthropic_server: FakeLLMServer,
) -> None:
    anthropic_server.script(Reply(reasoning=["Rayleigh ", "scattering?"], chunks=["Blue [1]."]))
    texts, thoughts, _ = await collect_all(chat(anthropic_server, Sleeps()).stream(QUESTION))
    assert texts == ["Blue [1]."]
    assert thoughts == ["Rayleigh ", "scattering?"]


async def test_overloaded_then_success_honours_retry_after_date(
    anthropic_server: FakeLLMServer,
) -> None:
    anthropic_server.script(
        Reply(
            status=529, error="Overloaded", headers={"retry-after": "Thu, 01 Jan 1970 00:00:00 GMT"}
        ),
        Reply(chunks=["ok"]),
    )
    sleeps = Sleeps()
    texts, _ = await collect(chat(anthropic_server, sleeps).stream(QUESTION))
    assert texts == ["ok"]
    assert sleeps.waits == [0.0]  # a date in the past: retry now


async def test_401_is_a_clear_refusal(anthropic_server: FakeLLMServer) -> None:
    anthropic_server.script(Reply(status=401, error="invalid x-api-key"))
    with pytest.raises(
        LLMError,
        match=r"^claude-sonnet-4-6 at http://127\.0\.0\.1:\d+: "
        r"LLM endpoint refused: 401 invalid x-api-key$",
    ):
        await collect(chat(anthropic_server, Sleeps()).stream(QUESTION))


async def test_keys_rotate_round_robin(anthropic_server: FakeLLMServer) -> None:
    keys = fresh_keys(3)
    anthropic_server.script(*[Reply(chunks=["a"])] * 4)
    model = chat(anthropic_server, Sleeps(), keys)
    for _ in range(4):
        await collect(model.stream(QUESTION))
    assert [r.key for r in anthropic_server.received] == [*keys, keys[0]]


async def test_an_error_event_mid_stream_after_text_is_not_repeated(
    anthropic_server: FakeLLMServer,
) -> None:
    start = (
        'event: message_start\ndata: {"type": "message_start", "message": {"id": "m", "type":'
        ' "message", "role": "assistant", "content": [], "model": "c", "stop_reason": null,'
        ' "stop_sequence": null, "usage": {"input_tokens": 5, "output_tokens": 1}}}\n\n'
    )
    delta = (
        'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0,'
        ' "delta": {"type": "text_delta", "text": "Partial"}}\n\n'
    )
    error = (
        'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error",'
        ' "message": "Overloaded"}}\n\n'
    )
    anthropic_server.script(Reply(raw=start + delta + error), Reply(chunks=["unused"]))
    seen: list[str] = []

    async def consume() -> None:
        async for item in chat(anthropic_server, Sleeps()).stream(QUESTION):
            seen.append(str(item))

    with pytest.raises(LLMError, match="broke after text was sent: stream error: Overloaded"):
        await consume()
    assert seen == ["Partial"]
    assert len(anthropic_server.received) == 1
