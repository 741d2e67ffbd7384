from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from sleuth.llm.thinking import (
    ReasoningFilter,
    split_reasoning_text,
    strip_reasoning,
    strip_reasoning_text,
)


async def _deltas(*parts: str) -> AsyncIterator[str]:
    for part in parts:
        yield part


async def _stripped(*parts: str) -> list[str]:
    return [piece async for piece in strip_reasoning(_deltas(*parts))]


@pytest.mark.parametrize(
    ("text", "visible"),
    [
        ("<think>secret</think>Answer [1].", "Answer [1]."),
        ("<thinking>a\nb</thinking>\n\nAnswer.", "Answer."),
        ("<reasoning>x</reasoning>A <think>y</think>B", "A B"),
        ("<THINK>loud</THINK>quiet", "quiet"),
        ("No reasoning here, 3 < 4 and <b>bold</b>.", "No reasoning here, 3 < 4 and <b>bold</b>."),
        ("<think>never closes and swallows the rest", ""),
        ("Intro <think>cut off", "Intro "),
    ],
)
def test_strip_reasoning_text(text: str, visible: str) -> None:
    assert strip_reasoning_text(text) == visible


async def test_tags_split_across_deltas() -> None:
    parts = ["<", "thi", "nk>The user wants", " X.</thi", "nk>", "\n\nThe answer", " is 42 [1]."]
    assert "".join(await _stripped(*parts)) == "The answer is 42 [1]."


async def test_every_split_point_gives_the_same_text() -> None:
    text = "Lead. <thinking>hidden <b> stuff</thinking>Visible <i>end</i>."
    for cut in range(len(text)):
        assert "".join(await _stripped(text[:cut], text[cut:])) == "Lead. Visible <i>end</i>."


async def test_visible_text_streams_without_waiting_for_the_end() -> None:
    pieces = await _stripped("Hello ", "world", " <thi", "nk>x</think> again")
    assert pieces[:2] == ["Hello ", "world"]
    assert "".join(pieces) == "Hello world  again"


async def test_a_lone_angle_bracket_at_the_end_is_released() -> None:
    assert "".join(await _stripped("a <", "")) == "a <"
    assert "".join(await _stripped("ends with <thin")) == "ends with <thin"


@pytest.mark.parametrize(
    ("text", "visible", "thought"),
    [
        ("<think>secret</think>Answer [1].", "Answer [1].", "secret"),
        ("<reasoning>x</reasoning>A <think>y</think>B", "A B", "xy"),
        ("<think>never closes and swallows the rest", "", "never closes and swallows the rest"),
        ("No reasoning, 3 < 4.", "No reasoning, 3 < 4.", ""),
    ],
)
def test_split_reasoning_text(text: str, visible: str, thought: str) -> None:
    assert split_reasoning_text(text) == (visible, thought)


def test_reasoning_streams_out_before_its_block_closes() -> None:
    flt = ReasoningFilter()
    assert flt.feed("<think>a long first thought ") == ""
    early = flt.take_reasoning()
    assert early and "a long first thought".startswith(early)  # only a closer's length held
    assert flt.feed("and the rest</think>Answer.") == "Answer."
    assert early + flt.take_reasoning() == "a long first thought and the rest"


def test_every_split_point_gives_the_same_reasoning() -> None:
    text = "Lead. <thinking>hidden <b> stuff</thinking>Visible."
    for cut in range(len(text)):
        flt = ReasoningFilter()
        visible = flt.feed(text[:cut]) + flt.feed(text[cut:]) + flt.flush()
        assert (visible, flt.take_reasoning()) == ("Lead. Visible.", "hidden <b> stuff")
