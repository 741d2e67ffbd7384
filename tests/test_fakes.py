"""The scripted FakeChatModel behaves like the real providers at the ChatModel boundary."""

from __future__ import annotations

import pytest

from sleuth.errors import BudgetExceededError, LLMError
from sleuth.llm.meter import Meter
from sleuth.ports import ChatModel, Message, Reasoning, TokenUsage

from .fakes import FakeChatModel

ASK = [Message("user", "question?")]


async def _run(model: ChatModel) -> tuple[str, TokenUsage]:
    text, usage = "", None
    async for item in model.stream(ASK):
        if isinstance(item, TokenUsage):
            usage = item
        elif isinstance(item, str):
            text += item
    assert usage is not None
    return text, usage


async def test_replies_in_order_and_records_calls() -> None:
    fake = FakeChatModel()
    fake.enqueue(["Blue ", "[1]."], usage=(100, 4))
    fake.enqueue("<think>hmm</think>Second.")
    assert await _run(fake) == ("Blue [1].", TokenUsage("fake-model", 100, 4))
    text, usage = await _run(fake)
    assert text == "Second."
    assert usage.output_tokens > 0
    assert fake.calls == [ASK, ASK]


async def test_reasoning_comes_apart_from_the_text() -> None:
    fake = FakeChatModel()
    fake.enqueue(["<think>hm", "m</think>", "Answer."])
    items = [item async for item in fake.stream(ASK)]
    assert "".join(i.text for i in items if isinstance(i, Reasoning)) == "hmm"
    assert [i for i in items if isinstance(i, str)] == ["Answer."]


async def test_scripted_error_and_exhausted_script() -> None:
    fake = FakeChatModel("m")
    fake.enqueue_error(LLMError("LLM endpoint refused: 401 bad key"))
    with pytest.raises(LLMError, match="401"):
        await _run(fake)
    with pytest.raises(AssertionError, match="no scripted reply"):
        await _run(fake)


async def test_meter_is_checked_before_each_call() -> None:
    meter = Meter(max_cost_usd=0.0001)
    fake = FakeChatModel("gpt-4o", meter=meter)
    fake.enqueue("one", usage=(1_000, 100))
    fake.enqueue("two")
    await _run(fake)
    with pytest.raises(BudgetExceededError):
        await _run(fake)
    assert len(fake.calls) == 1
