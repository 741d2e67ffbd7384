from __future__ import annotations

import pytest

from sleuth.errors import ConfigError
from sleuth.llm.anthropic_chat import AnthropicChat
from sleuth.llm.azure_chat import AzureChat
from sleuth.llm.factory import LLMSettings, build_chat_model, make_meter
from sleuth.llm.gemini_chat import GeminiChat
from sleuth.llm.lazy import LazyChat
from sleuth.llm.meter import Meter
from sleuth.llm.openai_chat import OpenAIChat
from sleuth.llm.pricing import Price
from sleuth.ports import TokenUsage

from .fake_servers import FakeLLMServer, Reply
from .helpers import QUESTION, collect

AZURE = "https://contoso.openai.azure.com"
PROVIDERS = {
    "openai": OpenAIChat, "anthropic": AnthropicChat, "google": GeminiChat, "azure": AzureChat
}  # fmt: skip


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
        ({"GEMINI_API_KEY": "g"}, {}, "google"),
        ({"GOOGLE_API_KEY": "g"}, {}, "google"),
        ({"GEMINI_API_KEY": "g", "OPENAI_API_KEY": "sk-o"}, {"api_format": "google"}, "google"),
        ({"AZURE_OPENAI_API_KEY": "z", "AZURE_OPENAI_ENDPOINT": AZURE}, {}, "azure"),
        ({"AZURE_OPENAI_AD_TOKEN": "t", "AZURE_OPENAI_ENDPOINT": AZURE}, {}, "azure"),
        ({"SLEUTH_BASE_URL": AZURE, "SLEUTH_API_KEY": "z"}, {}, "azure"),
        ({"OPENAI_API_KEY": "sk-o"}, {"api_format": "azure", "base_url": AZURE}, "azure"),
    ],
)
async def test_format_detection(env: dict[str, str], explicit: dict[str, str], fmt: str) -> None:
    settings = LLMSettings.from_env(env, **explicit)
    assert settings.wire_format == fmt
    model = build_chat_model(settings, Meter())
    assert isinstance(model, LazyChat)  # the SDK loads in a thread on first use
    real = await model.model()
    assert type(real) is PROVIDERS[fmt]
    await model.aclose()


def test_azure_keys_tokens_endpoint_and_version() -> None:
    keyed = LLMSettings.from_env(
        {"AZURE_OPENAI_API_KEY": "z1,z2", "AZURE_OPENAI_ENDPOINT": AZURE,
         "OPENAI_API_VERSION": "2025-04-01-preview", "AZURE_OPENAI_AD_TOKEN": "tok"},
        model="my-deployment",
    )  # fmt: skip
    assert (keyed.keys, keyed.endpoint, keyed.entra_token) == (("z1", "z2"), AZURE, None)
    assert keyed.azure_api_version == "2025-04-01-preview"
    assert keyed.model_for("plan") == "my-deployment"
    token = LLMSettings.from_env(
        {"SLEUTH_API_FORMAT": "azure", "SLEUTH_BASE_URL": AZURE},
        azure_ad_token="tok",
        azure_api_version="2024-06-01",
    )
    assert token.configured and token.keys == () and token.entra_token == "tok"
    assert token.azure_api_version == "2024-06-01"


def test_azure_without_an_endpoint_is_a_config_error_naming_the_setting() -> None:
    settings = LLMSettings.from_env({"AZURE_OPENAI_API_KEY": "z"}, api_format="azure")
    with pytest.raises(ConfigError, match="Azure OpenAI resource") as info:
        build_chat_model(settings, Meter())
    assert info.value.setting == "base_url"


def test_gemini_keys_default_model_and_prices() -> None:
    settings = LLMSettings.from_env({"GEMINI_API_KEY": "g1", "GOOGLE_API_KEY": "g2"})
    assert settings.keys == ("g1",)
    assert settings.model_for("synth") == "gemini-2.5-flash"
    assert make_meter(settings).prices.lookup("gemini-2.5-flash-lite-preview") == Price(0.1, 0.4)


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
