from __future__ import annotations

import pytest

from sleuth.errors import ConfigError
from sleuth.llm.anthropic_chat import AnthropicChat
from sleuth.llm.factory import LLMSettings, build_chat_model, make_meter
from sleuth.llm.lazy import LazyChat
from sleuth.llm.meter import Meter
from sleuth.llm.openai_chat import OpenAIChat
from sleuth.llm.pricing import Price
from sleuth.ports import TokenUsage

from .fake_servers import FakeLLMServer, Reply
from .helpers import QUESTION, collect


def test_nothing_configured_means_no_model() -> None:
    settings = LLMSettings.from_env({"SLEUTH_MODEL": "gpt-4o"})
    assert not settings.configured
    assert build_chat_model(settings, Meter()) is None


@pytest.mark.parametrize(
    ("env", "explicit", "fmt"),
    [
        ({"OPENAI_API_KEY": "sk-o"}, {}, "openai"),
        ({"ANTHROPIC_API_KEY": "sk-a"}, {}, "anthropic"),
        ({"ANTHROPIC_API_KEY": "sk-a", "OPENAI_API_KEY": "sk-o"}, {}, "openai"),
        ({"SLEUTH_BASE_URL": "http://127.0.0.1:11434/v1", "ANTHROPIC_API_KEY": "a"}, {}, "openai"),
        ({"SLEUTH_BASE_URL": "https://api.anthropic.com"}, {}, "anthropic"),
        ({"ANTHROPIC_API_KEY": "sk-a", "SLEUTH_API_FORMAT": "openai"}, {"api_keys": "k"}, "openai"),
        ({"OPENAI_API_KEY": "sk-o"}, {"api_format": "anthropic", "api_keys": "k"}, "anthropic"),
    ],
)
async def test_format_detection(env: dict[str, str], explicit: dict[str, str], fmt: str) -> None:
    settings = LLMSettings.from_env(env, **explicit)
    assert settings.wire_format == fmt
    model = build_chat_model(settings, Meter())
    assert isinstance(model, LazyChat)  # the SDK loads in a thread on first use
    real = await model.model()
    assert isinstance(real, OpenAIChat if fmt == "openai" else AnthropicChat)
    await model.aclose()


def test_keys_and_models_per_format_and_stage() -> None:
    anthropic = LLMSettings.from_env({"ANTHROPIC_API_KEY": "a1,a2"})
    assert anthropic.keys == ("a1", "a2")
    assert anthropic.model_for("synth") == "claude-sonnet-4-6"
    openai = LLMSettings.from_env(
        {"OPENAI_API_KEY": "o1", "SLEUTH_PLAN_MODEL": "gpt-4.1-mini"}, model="gpt-4.1"
    )
    assert openai.keys == ("o1",)
    assert openai.model_for("synth") == "gpt-4.1"
    assert openai.model_for("plan") == "gpt-4.1-mini"
    assert openai.model_for("critic") == "gpt-4.1"
    explicit = LLMSettings.from_env({"OPENAI_API_KEY": "o1", "SLEUTH_API_KEY": "s1"})
    assert explicit.keys == ("s1",)


def test_explicit_values_override_env_but_none_does_not() -> None:
    env = {"SLEUTH_MODEL": "from-env", "SLEUTH_MAX_COST": "0.5", "SLEUTH_LLM_TIMEOUT": "12"}
    settings = LLMSettings.from_env(env, model=None, max_cost=2.0, critic_model="c")
    assert settings.model == "from-env"
    assert settings.max_cost == 2.0
    assert settings.timeout_s == 12.0
    assert settings.critic_model == "c"


@pytest.mark.parametrize(
    "env",
    [{"SLEUTH_API_FORMAT": "gemini"}, {"SLEUTH_MAX_COST": "lots"}, {"SLEUTH_LLM_TIMEOUT": "0"}],
)
def test_bad_settings_are_config_errors(env: dict[str, str]) -> None:
    with pytest.raises(ConfigError):
        LLMSettings.from_env(env)


def test_loopback_models_are_free_and_the_cap_comes_from_settings() -> None:
    local = LLMSettings.from_env(
        {
            "SLEUTH_BASE_URL": "http://localhost:8080/v1",
            "SLEUTH_MODEL": "qwen3:4b",
            "SLEUTH_MAX_COST": "0.25",
        }
    )
    meter = make_meter(local)
    assert meter.max_cost_usd == 0.25
    assert meter.prices.lookup("qwen3:4b") == Price(0.0, 0.0)
    remote = LLMSettings.from_env(
        {"SLEUTH_BASE_URL": "https://llm.example/v1", "SLEUTH_MODEL": "q"}
    )
    assert make_meter(remote).prices.lookup("q") is None


async def test_built_model_talks_to_the_configured_server(openai_server: FakeLLMServer) -> None:
    openai_server.script(Reply(chunks=["planned"], usage=(3, 1)))
    settings = LLMSettings.from_env(
        {"SLEUTH_BASE_URL": openai_server.url, "SLEUTH_PLAN_MODEL": "small-planner"}
    )
    meter = make_meter(settings)
    model = build_chat_model(settings, meter, stage="plan")
    assert model is not None
    texts, usage = await collect(model.stream(QUESTION))
    assert texts == ["planned"]
    assert usage == TokenUsage("small-planner", 3, 1)
    assert openai_server.received[0].body["model"] == "small-planner"
    assert openai_server.received[0].key == "sleuth-no-key"
    assert meter.by_model()["small-planner"].cost_usd == 0.0
