"""From settings (environment < explicit values) to a ready ChatModel, or None for no LLM.

Wire format (the provider), when not given: a base URL on an Azure OpenAI host → azure, one
naming Anthropic → anthropic, any other base URL → openai (local servers and Gemini's
OpenAI-compatible endpoint speak it); with no base URL, the first vendor with a key set:
OPENAI_API_KEY → openai, ANTHROPIC_API_KEY → anthropic, GEMINI_API_KEY / GOOGLE_API_KEY →
google, AZURE_OPENAI_API_KEY (or an Entra token) with AZURE_OPENAI_ENDPOINT → azure. No base
URL and no key for the chosen format means no LLM is configured, and the caller uses the
extractive writer. Stages: `plan` uses the plan model, `critic` the critic model, each falling
back to the main (synth) model.
"""

from __future__ import annotations

import importlib
import importlib.util
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

WireFormat = Literal["openai", "anthropic", "google", "azure"]
Stage = Literal["synth", "plan", "critic"]

DEFAULT_MODELS: Mapping[WireFormat, str] = {
    "openai": "gpt-4o-mini",
    "anthropic": "claude-sonnet-4-6",
    "google": "gemini-2.5-flash",
    # Azure names deployments, not models; its quickstarts name a deployment after its model.
    "azure": "gpt-4o-mini",
}
AZURE_API_VERSION = "2024-10-21"  # the latest GA data-plane version with streamed usage
# Imported on first use: each SDK takes a second or more to import, and a run without an LLM
# should not pay for it.
_PROVIDERS: Mapping[WireFormat, tuple[str, str]] = {
    "openai": ("sleuth.llm.openai_chat", "OpenAIChat"),
    "anthropic": ("sleuth.llm.anthropic_chat", "AnthropicChat"),
    "google": ("sleuth.llm.gemini_chat", "GeminiChat"),
    "azure": ("sleuth.llm.azure_chat", "AzureChat"),
}
_AZURE_HOSTS = (".openai.azure.com", ".cognitiveservices.azure.com", ".services.ai.azure.com")
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
    google_keys: tuple[str, ...] = ()  # GEMINI_API_KEY, else GOOGLE_API_KEY
    azure_keys: tuple[str, ...] = ()  # AZURE_OPENAI_API_KEY
    azure_endpoint: str | None = None  # AZURE_OPENAI_ENDPOINT, when no base URL is given
    azure_api_version: str = AZURE_API_VERSION
    azure_ad_token: str | None = None  # an Entra ID bearer token instead of a key
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
            google_keys=split_keys(env.get("GEMINI_API_KEY") or env.get("GOOGLE_API_KEY")),
            azure_keys=split_keys(env.get("AZURE_OPENAI_API_KEY")),
            azure_endpoint=env.get("AZURE_OPENAI_ENDPOINT") or None,
            azure_api_version=env.get("OPENAI_API_VERSION") or AZURE_API_VERSION,
            azure_ad_token=env.get("AZURE_OPENAI_AD_TOKEN") or None,
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
            host = (urlsplit(self.base_url).hostname or "").lower()
            if host.endswith(_AZURE_HOSTS):
                return "azure"
            return "anthropic" if "anthropic" in self.base_url.lower() else "openai"
        vendors: tuple[tuple[WireFormat, object], ...] = (
            ("openai", self.openai_keys),
            ("anthropic", self.anthropic_keys),
            ("google", self.google_keys),
            ("azure", self.azure_endpoint and (self.azure_keys or self.azure_ad_token)),
        )
        return next((fmt for fmt, has in vendors if has), "openai")

    @property
    def keys(self) -> tuple[str, ...]:
        vendor = {
            "openai": self.openai_keys,
            "anthropic": self.anthropic_keys,
            "google": self.google_keys,
            "azure": self.azure_keys,
        }[self.wire_format]
        return self.api_keys or vendor

    @property
    def endpoint(self) -> str | None:
        """The base URL, or for Azure OpenAI the resource from AZURE_OPENAI_ENDPOINT."""
        if self.base_url or self.wire_format != "azure":
            return self.base_url
        return self.azure_endpoint

    @property
    def entra_token(self) -> str | None:
        """The Entra ID token Azure OpenAI is called with, when no API key is given."""
        if self.wire_format != "azure" or self.keys:
            return None
        return self.azure_ad_token

    @property
    def configured(self) -> bool:
        return bool(self.endpoint or self.keys or self.entra_token) or self.model == "local"

    def model_for(self, stage: Stage) -> str:
        main = self.model or DEFAULT_MODELS[self.wire_format]
        staged = {"plan": self.plan_model, "critic": self.critic_model}.get(stage)
        return staged or main

    @property
    def is_local(self) -> bool:
        """A loopback endpoint: models served there cost nothing."""
        host = urlsplit(self.endpoint or "").hostname or ""
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
    options = {} if in_process else _provider_options(settings)

    def build() -> ChatModel:
        provider: Callable[..., ChatModel] = getattr(importlib.import_module(module), cls)
        return provider(
            name,
            api_keys=settings.keys,
            base_url=settings.endpoint,
            timeout_s=settings.timeout_s,
            retry=settings.retry,
            meter=meter,
            clients=clients,
            **options,
        )

    # In-process models fail at once when their extra is missing; remote ones load their SDK
    # in a thread on first use, overlapping the run's first search.
    return build() if in_process else LazyChat(name, build)


def _provider_options(settings: LLMSettings) -> dict[str, Any]:
    """What a provider needs besides a model, keys and an endpoint; checked before any call."""
    if settings.wire_format == "google":
        _require_extra("google.genai", "google")
    if settings.wire_format != "azure":
        return {}
    if not settings.endpoint:
        raise ConfigError(
            "base_url must name the Azure OpenAI resource (https://NAME.openai.azure.com), or "
            "AZURE_OPENAI_ENDPOINT be set",
            setting="base_url",
        )
    return {"api_version": settings.azure_api_version, "entra_token": settings.entra_token}


def _require_extra(module: str, extra: str) -> None:
    if not _importable(module):
        raise ConfigError(
            f"api_format {extra} needs the {module} package: pip install 'sleuth[{extra}]'",
            setting="api_format",
        )


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def _api_format(value: str) -> ApiFormat:
    value = value.strip().lower()
    if value not in get_args(ApiFormat):
        known = ", ".join(get_args(ApiFormat))
        raise ConfigError(f"api format must be one of {known}, got {value!r}")
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
