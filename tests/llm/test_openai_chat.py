from __future__ import annotations

import pytest

from sleuth.errors import BudgetExceededError, LLMError
from sleuth.llm.meter import Meter
from sleuth.llm.openai_chat import OpenAIChat
from sleuth.ports import TokenUsage

from .fake_servers import FakeLLMServer, Reply
from .helpers import QUESTION, Sleeps, collect, collect_all, fresh_keys


def chat(
    server: FakeLLMServer,
    sleeps: Sleeps,
    keys: tuple[str, ...] = (),
    timeout_s: float = 2.0,
    meter: Meter | None = None,
) -> OpenAIChat:
    return OpenAIChat(
        "gpt-4o-mini", keys or fresh_keys(1), server.url, timeout_s, sleeps.policy(), meter
    )


async def test_streams_deltas_then_api_usage(openai_server: FakeLLMServer) -> None:
    openai_server.script(Reply(chunks=["The sky ", "scatters ", "blue light."], usage=(40, 9)))
    texts, usage = await collect(chat(openai_server, Sleeps()).stream(QUESTION, max_tokens=99))
    assert texts == ["The sky ", "scatters ", "blue light."]
    assert usage == TokenUsage("gpt-4o-mini", 40, 9)
    body = openai_server.received[0].body
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["max_tokens"] == 99
    assert body["messages"][0] == {"role": "system", "content": "You answer from sources."}


async def test_missing_usage_is_estimated_from_characters(openai_server: FakeLLMServer) -> None:
    openai_server.script(Reply(chunks=["x" * 40], usage=None))
    _, usage = await collect(chat(openai_server, Sleeps()).stream(QUESTION))
    assert usage.output_tokens == 10
    assert usage.input_tokens == -(-sum(len(m.content) for m in QUESTION) // 4)


async def test_reasoning_content_field_and_think_tags_are_reasoning_not_answer_text(
    openai_server: FakeLLMServer,
) -> None:
    openai_server.script(
        Reply(
            reasoning=["Let me ", "think"],
            chunks=["<thi", "nk>private</th", "ink>\n\nPublic ", "answer."],
        )
    )
    texts, thoughts, _ = await collect_all(chat(openai_server, Sleeps()).stream(QUESTION))
    assert "".join(texts) == "Public answer."
    assert "".join(thoughts) == "Let me thinkprivate"
    assert thoughts[:2] == ["Let me ", "think"]  # streamed as it arrives, not at the end


async def test_429_with_retry_after_then_success(openai_server: FakeLLMServer) -> None:
    openai_server.script(
        Reply(status=429, error="slow down", headers={"Retry-After": "3"}),
        Reply(chunks=["ok"]),
    )
    sleeps = Sleeps()
    texts, _ = await collect(chat(openai_server, sleeps).stream(QUESTION))
    assert texts == ["ok"]
    assert sleeps.waits == [3.0]
    assert len(openai_server.received) == 2


async def test_500_twice_then_success_backs_off(openai_server: FakeLLMServer) -> None:
    openai_server.script(Reply(status=500), Reply(status=503), Reply(chunks=["fine"]))
    sleeps = Sleeps()
    texts, _ = await collect(chat(openai_server, sleeps).stream(QUESTION))
    assert texts == ["fine"]
    assert len(sleeps.waits) == 2
    assert 0 < sleeps.waits[0] <= 0.01 < sleeps.waits[1] <= 0.02


async def test_gives_up_after_the_attempts(openai_server: FakeLLMServer) -> None:
    openai_server.script(*[Reply(status=502, error="bad gateway")] * 4)
    with pytest.raises(LLMError, match="failed after 4 attempts: 502 bad gateway"):
        await collect(chat(openai_server, Sleeps()).stream(QUESTION))


async def test_401_fails_at_once_with_a_clear_message(openai_server: FakeLLMServer) -> None:
    openai_server.script(Reply(status=401, error="Incorrect API key provided"))
    sleeps = Sleeps()
    with pytest.raises(LLMError) as info:
        await collect(chat(openai_server, sleeps).stream(QUESTION))
    assert str(info.value).endswith(": LLM endpoint refused: 401 Incorrect API key provided")
    assert str(info.value).startswith("gpt-4o-mini at http://127.0.0.1:"), "names the endpoint"
    assert info.value.retryable is False
    assert sleeps.waits == []
    assert len(openai_server.received) == 1


@pytest.mark.parametrize("status", [400, 403, 404])
async def test_other_refusals_are_not_retried(openai_server: FakeLLMServer, status: int) -> None:
    openai_server.script(Reply(status=status, error="model not found"))
    with pytest.raises(LLMError, match=f"refused: {status} model not found"):
        await collect(chat(openai_server, Sleeps()).stream(QUESTION))
    assert len(openai_server.received) == 1


async def test_a_hanging_server_times_out_and_retries(openai_server: FakeLLMServer) -> None:
    openai_server.script(Reply(hang=True), Reply(chunks=["late but here"]))
    sleeps = Sleeps()
    texts, _ = await collect(chat(openai_server, sleeps, timeout_s=0.3).stream(QUESTION))
    assert texts == ["late but here"]
    assert len(sleeps.waits) == 1


async def test_timeouts_on_every_attempt_say_so(openai_server: FakeLLMServer) -> None:
    openai_server.script(Reply(hang=True), Reply(hang=True))
    model = OpenAIChat("m", fresh_keys(1), openai_server.url, 0.2, Sleeps().policy(attempts=2))
    with pytest.raises(LLMError, match=r"failed after 2 attempts: timed out after 0.2s"):
        await collect(model.stream(QUESTION))


async def test_a_stream_that_breaks_after_text_is_not_retried(
    openai_server: FakeLLMServer,
) -> None:
    openai_server.script(Reply(chunks=["first ", "second"], hang_after=1), Reply(chunks=["again"]))
    seen: list[str] = []

    async def consume() -> None:
        async for item in chat(openai_server, Sleeps(), timeout_s=0.3).stream(QUESTION):
            seen.append(str(item))

    with pytest.raises(LLMError, match="broke after text was sent"):
        await consume()
    assert seen == ["first "]
    assert len(openai_server.received) == 1


async def test_keys_rotate_round_robin(openai_server: FakeLLMServer) -> None:
    keys = fresh_keys(2)
    openai_server.script(*[Reply(chunks=["a"])] * 4)
    model = chat(openai_server, Sleeps(), keys)
    for _ in range(4):
        await collect(model.stream(QUESTION))
    assert [r.key for r in openai_server.received] == [keys[0], keys[1], keys[0], keys[1]]


async def test_a_rejected_key_is_skipped_for_the_rest_of_the_process(
    openai_server: FakeLLMServer,
) -> None:
    keys = fresh_keys(2)
    openai_server.script(Reply(status=401, error="invalid api key"), *[Reply(chunks=["a"])] * 3)
    first = chat(openai_server, Sleeps(), keys)
    texts, _ = await collect(first.stream(QUESTION))
    assert texts == ["a"]
    # A second model (another stage) on the same endpoint never sends the bad key again.
    second = chat(openai_server, Sleeps(), keys)
    await collect(second.stream(QUESTION))
    await collect(first.stream(QUESTION))
    assert [r.key for r in openai_server.received] == [keys[0], keys[1], keys[1], keys[1]]


async def test_all_keys_rejected_is_a_clear_error(openai_server: FakeLLMServer) -> None:
    keys = fresh_keys(2)
    openai_server.script(*[Reply(status=401, error="invalid api key")] * 2)
    with pytest.raises(LLMError, match="refused: 401 invalid api key"):
        await collect(chat(openai_server, Sleeps(), keys).stream(QUESTION))
    with pytest.raises(LLMError, match="refused every API key"):
        await collect(chat(openai_server, Sleeps(), keys).stream(QUESTION))
    assert len(openai_server.received) == 2


async def test_meter_records_usage_and_blocks_the_call_after_the_cap(
    openai_server: FakeLLMServer,
) -> None:
    meter = Meter(max_cost_usd=0.001)
    openai_server.script(Reply(chunks=["a"], usage=(5_000, 1_000)), Reply(chunks=["b"]))
    model = chat(openai_server, Sleeps(), meter=meter)
    await collect(model.stream(QUESTION))
    assert meter.by_model()["gpt-4o-mini"].input_tokens == 5_000
    assert meter.model_ms >= 0
    with pytest.raises(BudgetExceededError, match=r"spent \$0.0014 of \$0.0010"):
        await collect(model.stream(QUESTION))
    assert len(openai_server.received) == 1


async def test_an_error_object_inside_the_stream_is_retried(openai_server: FakeLLMServer) -> None:
    # OpenAI-compatible routers report upstream failures as a data line inside a 200 stream.
    openai_server.script(
        Reply(raw='data: {"error": {"message": "upstream overloaded", "code": 502}}\n\n'),
        Reply(chunks=["recovered"]),
    )
    sleeps = Sleeps()
    texts, _ = await collect(chat(openai_server, sleeps).stream(QUESTION))
    assert texts == ["recovered"]
    assert len(sleeps.waits) == 1


async def test_an_unreadable_stream_is_an_llm_error_not_a_crash(
    openai_server: FakeLLMServer,
) -> None:
    openai_server.script(Reply(raw="data: {this is not json\n\n"))
    with pytest.raises(LLMError, match="LLM call failed"):
        await collect(chat(openai_server, Sleeps()).stream(QUESTION))
