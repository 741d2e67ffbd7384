"""From settings (environment < explicit values) to a ready ChatModel, or None for no LLM.

Wire format, when not given: a base URL naming Anthropic → anthropic, any other base URL →
openai (local servers speak it); with no base URL, only ANTHROPIC_API_KEY set → anthropic, else
openai. No base URL and no key for the chosen format means no LLM is configured, and the caller
uses the extractive writer. Stages: `plan` uses the plan model, `critic` the critic model, each
falling back to the main (synth) model.
"""

from __future__ import annotations

import importlib
import ipaddress
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, cast, get_args
from urllib.parse import urlsplit

from ..errors import ConfigError, UsageError
from ..ports import ChatModel
from ..types import ApiFormat
from .clients import ClientPool
from .keys import split_keys
from .lazy import LazyChat
from .meter import Meter
from .pricing import DEFAULT_PRICES, Prices, prices_from_env
from .retry import RetryPolicy

WireFormat = Literal["openai", "anthropic"]
Stage = Literal["synth", "plan", "critic"]

DEFAULT_MODELS: Mapping[WireFormat, str] = {
    "openai": "gpt-4o-mini",
    "anthropic": "claude-sonnet-4-6",
}
# Imported on first use: each SDK takes a second or more to import, and a run without an LLM
# should not pay for it.
_PROVIDERS: Mapping[WireFormat, tuple[str, str]] = {
    "openai": ("sleuth.llm.openai_chat", "OpenAIChat"),
    "anthropic": ("sleuth.llm.anthropic_chat", "AnthropicChat"),
}
# `--model local` with no base URL: llama.cpp in this process (the sleuth[local] extra).
_IN_PROCESS = ("sleuth.llm.local", "LocalChat")


@dataclass(frozen=True, slots=True)
class LLMSettings:
    base_url: str | None = None
    api_keys: tuple[str, ...] = ()  # SLEUTH_API_KEY / --api-key: used whatever the format
    model: str | None = None  # None: DEFAULT_MODELS for the format
    api_format: ApiFormat = "auto"
    plan_model: str | None = None
    critic_model: str | None = None
    timeout_s: float = 60.0
    context_tokens: int | None = None  # None: the prompt builder's default
    max_cost: float | None = None
    openai_keys: tuple[str, ...] = ()  # OPENAI_API_KEY
    anthropic_keys: tuple[str, ...] = ()  # ANTHROPIC_API_KEY
    prices: Prices = DEFAULT_PRICES
    retry: RetryPolicy = field(default_factory=RetryPolicy)

    @classmethod
    def from_env(cls, env: Mapping[str, str], **explicit: Any) -> LLMSettings:
        """Settings from `env`, then every explicit value that is not None on top."""
        base = cls(
            base_url=env.get("SLEUTH_BASE_URL") or None,
            api_keys=split_keys(env.get("SLEUTH_API_KEY")),
            model=env.get("SLEUTH_MODEL") or None,
            api_format=_api_format(env.get("SLEUTH_API_FORMAT") or "auto"),
            plan_model=env.get("SLEUTH_PLAN_MODEL") or None,
            critic_model=env.get("SLEUTH_CRITIC_MODEL") or None,
            timeout_s=_positive(env, "SLEUTH_LLM_TIMEOUT") or 60.0,
            context_tokens=int(_positive(env, "SLEUTH_CONTEXT_TOKENS") or 0) or None,
            max_cost=_max_cost(env),
            openai_keys=split_keys(env.get("OPENAI_API_KEY")),
            anthropic_keys=split_keys(env.get("ANTHROPIC_API_KEY")),
            prices=prices_from_env(env),
        )
        given = {k: v for k, v in explicit.items() if v is not None}
        if isinstance(given.get("api_keys"), str):
            given["api_keys"] = split_keys(given["api_keys"])
        if "api_format" in given:
            given["api_format"] = _api_format(given["api_format"])
        return replace(base, **given)

    @property
    def wire_format(self) -> WireFormat:
        if self.api_format != "auto":
            return self.api_format
        if self.base_url:
            return "anthropic" if "anthropic" in self.base_url.lower() else "openai"
        return "anthropic" if self.anthropic_keys and not self.openai_keys else "openai"

    @property
    def keys(self) -> tuple[str, ...]:
        vendor = self.openai_keys if self.wire_format == "openai" else self.anthropic_keys
        return self.api_keys or vendor

    @property
    def configured(self) -> bool:
        return bool(self.base_url or self.keys) or self.model == "local"

    def model_for(self, stage: Stage) -> str:
        main = self.model or DEFAULT_MODELS[self.wire_format]
        staged = {"plan": self.plan_model, "critic": self.critic_model}.get(stage)
        return staged or main

    @property
    def is_local(self) -> bool:
        """A loopback endpoint: models served there cost nothing."""
        host = urlsplit(self.base_url or "").hostname or ""
        if host == "localhost":
            return True
        try:
            return ipaddress.ip_address(host).is_loopback
        except ValueError:
            return False


def make_meter(settings: LLMSettings) -> Meter:
    """The run's meter: the settings' cap and prices; models on a loopback server are free."""
    prices = settings.prices
    if settings.is_local:
        prices = prices.with_free(*(settings.model_for(s) for s in get_args(Stage)))
    return Meter(settings.max_cost, prices)


def build_chat_model(
    settings: LLMSettings,
    meter: Meter | None,
    stage: Stage = "synth",
    clients: ClientPool | None = None,
) -> ChatModel | None:
    """The chat model for `stage`, or None when no LLM is configured."""
    if not settings.configured:
        return None
    in_process = settings.model_for(stage) == "local" and not settings.base_url
    module, cls = _IN_PROCESS if in_process else _PROVIDERS[settings.wire_format]
    name = settings.model_for(stage)

    def build() -> ChatModel:
        provider: Callable[..., ChatModel] = getattr(importlib.import_module(module), cls)
        return provider(
            name,
            api_keys=settings.keys,
            base_url=settings.base_url,
            timeout_s=settings.timeout_s,
            retry=settings.retry,
            meter=meter,
            clients=clients,
        )

    # In-process models fail at once when their extra is missing; remote ones load their SDK
    # in a thread on first use, overlapping the run's first search.
    return build() if in_process else LazyChat(name, build)


def _api_format(value: str) -> ApiFormat:
    value = value.strip().lower()
    if value not in get_args(ApiFormat):
        raise ConfigError(f"api format must be auto, openai or anthropic, got {value!r}")
    return cast(ApiFormat, value)


def _max_cost(env: Mapping[str, str]) -> float | None:
    """SLEUTH_MAX_COST read as its table row reads it ($0.50 too); 0 means no spending."""
    from ..settings.values import coerce

    raw = (env.get("SLEUTH_MAX_COST") or "").strip()
    if not raw:
        return None
    try:
        return float(coerce("max_cost", raw))
    except UsageError as exc:
        raise ConfigError(f"SLEUTH_MAX_COST: {exc}") from None


def _positive(env: Mapping[str, str], name: str) -> float | None:
    raw = env.get(name)
    if raw is None or not raw.strip():
        return None
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number, got {raw!r}") from None
    if value <= 0:
        raise ConfigError(f"{name} must be positive, got {raw!r}")
    return value
