"""The web-app dialect's request (`POST /api/sse` body, `GET /api/sse/live` query) as Sleuth
setting values.

`provider` + `thinkingModel` + `taskModel` pick the model endpoint: each provider the dialect
names maps to one of Sleuth's providers (OpenAI-compatible, Anthropic, Gemini, Azure OpenAI)
at the provider's documented base URL (Azure: the server's AZURE_OPENAI_ENDPOINT resource, the
task and thinking models being deployment names), with the key (or Azure's Entra token) from
the server's environment (a client never sends a key or a URL);
`openaicompatible` is the server's own configured endpoint. The thinking model plans and
reviews, the task model writes. `enableCitationImage` (on unless turned off, as in the seed)
is the `images` setting: images of the cited pages in the report. `searchProvider` maps onto
Sleuth's backends (`model` is the provider's own web search for `openai` and `google`, the
server's default search otherwise). `language` is the writing language and, when it is a
language code (`en-US`, `de`), the search language too: the planner's queries and each
backend's language or region parameter. Each `promptOverrides` key replaces the instructions
of the Sleuth stage it names (`PROMPT_STAGES`); the reply formats, the untrusted-source
framing, the citation rules and the code-side citation check stay. Keys for a stage Sleuth
does without a model, and keys the dialect does not define, are reported, never silently
dropped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ...errors import UsageError
from ...langtag import is_tag
from ...limits import (
    DEEP_ROUNDS,
    MAX_PROMPT_OVERRIDE_CHARS,
    MAX_PROMPT_OVERRIDES,
    MAX_QUESTION_CHARS,
)
from ...types import PromptOverrides

LLM_SETTINGS = (
    "base_url", "api_key", "api_format", "model", "plan_model", "critic_model", "azure_ad_token"
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Provider:
    api_format: Literal["openai", "anthropic", "google", "azure"]
    base_url: str | None  # None: only the server's `base_url_env` names it (an Azure resource)
    key_env: tuple[str, ...]  # the server's variables holding the key, first set wins; (): none
    base_url_env: str | None = None  # the server's variable that moves the endpoint
    token_env: str | None = None  # a bearer token that may stand in for the key (Entra ID)

    def endpoint(self, env: Mapping[str, str]) -> str | None:
        moved = env.get(self.base_url_env) if self.base_url_env else None
        return moved or self.base_url


PROVIDERS: Mapping[str, Provider] = {
    "openai": Provider("openai", "https://api.openai.com/v1", ("OPENAI_API_KEY",)),
    "anthropic": Provider("anthropic", "https://api.anthropic.com", ("ANTHROPIC_API_KEY",)),
    "google": Provider(
        "google",
        "https://generativelanguage.googleapis.com",
        ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        "GOOGLE_GEMINI_BASE_URL",  # the google-genai SDK's own variable (a gateway, a proxy)
    ),
    "azure": Provider(
        "azure", None, ("AZURE_OPENAI_API_KEY",), "AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_AD_TOKEN"
    ),
    "deepseek": Provider("openai", "https://api.deepseek.com/v1", ("DEEPSEEK_API_KEY",)),
    "openrouter": Provider("openai", "https://openrouter.ai/api/v1", ("OPENROUTER_API_KEY",)),
    "mistral": Provider("openai", "https://api.mistral.ai/v1", ("MISTRAL_API_KEY",)),
    "xai": Provider("openai", "https://api.x.ai/v1", ("XAI_API_KEY",)),
    "ollama": Provider("openai", "http://127.0.0.1:11434/v1", ()),
}
CONFIGURED = "openaicompatible"  # the server's own base_url / SLEUTH_BASE_URL
UNSUPPORTED_PROVIDERS: Mapping[str, str] = {
    "pollinations": "Sleuth has no Pollinations adapter",
    "atlascloud": "Sleuth has no AtlasCloud adapter",
}
SEARCH: Mapping[str, str | None] = {
    "model": None,  # the provider's own search (MODEL_SEARCH), else the server's default
    "searxng": "searxng",
    "tavily": "tavily",
    "exa": "exa",
    "firecrawl": "firecrawl",
    "crw": "crw",
    "bocha": "bocha",
}
# `searchProvider: model` with a provider whose models search the web themselves: that search,
# with the same server key (the model's cited pages, read by Sleuth; docs/search.md).
MODEL_SEARCH: Mapping[str, str] = {"openai": "openai", "google": "gemini"}
# Each promptOverrides key of the dialect whose stage Sleuth has: the `PromptOverrides` field
# (Sleuth's stage instructions, prompts/*.md) its text replaces. docs/streaming.md has the table.
PROMPT_STAGES: Mapping[str, str] = {
    "systemInstruction": "system",  # the writer's role (system_role.md)
    "citationRulesPrompt": "citing",  # the writer's citation guidance (cite_style.md)
    "finalReportPrompt": "task",  # what the writer writes (report_task.md)
    "outputGuidelinesPrompt": "form",  # the report's form (report_form.md)
    "reportPlanPrompt": "plan",  # what the plan covers: its queries are the sections
    "serpQueriesPrompt": "queries",  # how the planner writes queries (plan_queries.md)
    "reviewPrompt": "critic",  # the deep critic's review (critic_task.md)
}
# The dialect's other keys: why this API's runs have no prompt for them to replace.
UNAPPLIED_PROMPTS: Mapping[str, str] = {
    "systemQuestionPrompt": "this API's runs ask no clarifying questions",
    "queryResultPrompt": "Sleuth makes no model call per search query",
    "searchResultPrompt": "Sleuth picks passages from search results in code, not with a model",
    "searchKnowledgeResultPrompt": "knowledge-base results are read like web results, in code",
    "finalReportCitationImagePrompt": "Sleuth picks a report's images in code, from the pages "
    "it read, not with a model",
    "finalReportReferencesPrompt": "Sleuth writes the source list itself from checked citations",
}
SHOWN_KEY_CHARS = 60  # an unknown key is quoted in a warning up to this long


class WebAppConfig(BaseModel):
    """The dialect's fields (SSEConfig); what Sleuth needs of them is optional."""

    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    provider: str | None = None
    thinkingModel: str | None = Field(None, max_length=200)
    taskModel: str | None = Field(None, max_length=200)
    searchProvider: str | None = None
    language: str | None = Field(None, max_length=40)
    maxResult: int | None = Field(None, ge=1, le=50)
    enableCitationImage: bool = True  # images of the cited pages beside their sentences
    enableReferences: bool = True
    promptOverrides: dict[str, str] | None = None

    @field_validator("query")
    @classmethod
    def _query(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the query is empty")
        return value.strip()

    @field_validator("promptOverrides", mode="before")
    @classmethod
    def _overrides(cls, value: Any) -> Any:
        """`GET /api/sse/live` carries promptOverrides as a JSON object in one parameter."""
        if isinstance(value, str):
            try:
                return json.loads(value)
            except json.JSONDecodeError:
                raise ValueError("promptOverrides must be a JSON object") from None
        return value

    @field_validator("promptOverrides")
    @classmethod
    def _bounded(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        if value is not None and len(value) > MAX_PROMPT_OVERRIDES:
            raise ValueError(f"{len(value)} keys; at most {MAX_PROMPT_OVERRIDES}")
        for key, text in (value or {}).items():
            if len(text) > MAX_PROMPT_OVERRIDE_CHARS:
                raise ValueError(
                    f"{_shown(key)} is {len(text)} characters; a prompt override is at most "
                    f"{MAX_PROMPT_OVERRIDE_CHARS}"
                )
        return value


@dataclass(frozen=True, slots=True)
class Mapped:
    config: WebAppConfig
    values: dict[str, Any]  # setting values for the run (the operator's defaults not included)
    dropped: tuple[str, ...]  # operator defaults the request replaces (its own model endpoint)
    ignored_prompts: tuple[str, ...] = ()  # the dialect's keys with no prompt here to replace
    unknown_prompts: tuple[str, ...] = ()  # keys the dialect does not define

    @property
    def warnings(self) -> list[str]:
        """What the requester asked for that this run does not do, in words."""
        out = [
            f"promptOverrides.{k} is not applied: {UNAPPLIED_PROMPTS[k]}"
            for k in self.ignored_prompts
        ]
        out += [
            f"promptOverrides.{_shown(k)} is not a prompt key of this API; it is not applied"
            for k in self.unknown_prompts
        ]
        return out


def parse(data: Mapping[str, Any]) -> WebAppConfig:
    """The request, or a UsageError that names the first bad field."""
    try:
        return WebAppConfig.model_validate(dict(data))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "body"
        message = str(first.get("msg", "invalid value")).removeprefix("Value error, ")
        if first.get("type") == "extra_forbidden":
            message = "is not a field of this API"
        raise UsageError(f"{where}: {message}") from None


def map_request(config: WebAppConfig, env: Mapping[str, str]) -> Mapped:
    values: dict[str, Any] = {"deep": DEEP_ROUNDS}  # the dialect always asks for deep research
    dropped: tuple[str, ...] = ()
    if config.provider is not None:
        endpoint = _provider(config.provider, env)
        values.update(endpoint)
        dropped = LLM_SETTINGS if endpoint else ()
        if endpoint and not config.taskModel:
            raise UsageError(f"taskModel is required with provider {config.provider!r}")
    if config.taskModel:
        values["model"] = config.taskModel
    thinking = config.thinkingModel or (config.taskModel if dropped else None)
    if thinking:  # a named provider's models only, never the server's configured ones
        values["plan_model"] = values["critic_model"] = thinking
    search = _search(config.searchProvider, config.provider)
    if search is not None:
        values["search"] = search
    if config.language:
        values["language"] = config.language
        if is_tag(config.language):  # "en-US": the dialect's language steers search too
            values["search_lang"] = config.language
    if config.maxResult is not None:
        values["max_results"] = config.maxResult
    values["images"] = config.enableCitationImage  # the seed's default is on
    stages, ignored, unknown = _prompt_stages(config.promptOverrides or {})
    if stages:
        values["prompt_overrides"] = PromptOverrides(**stages)
    return Mapped(config, values, dropped, ignored, unknown)


def _provider(name: str, env: Mapping[str, str]) -> dict[str, Any]:
    key = name.strip().lower()
    if key == CONFIGURED:
        return {}  # the server's own endpoint: its defaults stay
    if key in UNSUPPORTED_PROVIDERS:
        raise UsageError(f"provider {name!r}: {UNSUPPORTED_PROVIDERS[key]}")
    provider = PROVIDERS.get(key)
    if provider is None:
        known = ", ".join([*PROVIDERS, CONFIGURED])
        raise UsageError(f"provider {name!r} is not known; use one of {known}")
    endpoint = provider.endpoint(env)
    if endpoint is None:
        raise UsageError(f"provider {name!r} needs {provider.base_url_env} set on the server")
    values: dict[str, Any] = {"api_format": provider.api_format, "base_url": endpoint}
    secret = next((env[k] for k in provider.key_env if env.get(k)), None)
    if not provider.key_env:
        values["api_key"] = "none"
    elif secret:
        values["api_key"] = secret
    elif provider.token_env and env.get(provider.token_env):
        values["azure_ad_token"] = env[provider.token_env]
    else:
        needs = " or ".join((*provider.key_env, *filter(None, [provider.token_env])))
        raise UsageError(f"provider {name!r} needs {needs} set on the server")
    return values


def _search(name: str | None, provider: str | None) -> str | None:
    if name is None:
        return None
    key = name.strip().lower()
    if key not in SEARCH:
        known = ", ".join(SEARCH)
        raise UsageError(f"searchProvider {name!r} is not supported; use one of {known}")
    if key == "model":
        return MODEL_SEARCH.get((provider or "").strip().lower())
    return SEARCH[key]


def _prompt_stages(
    overrides: Mapping[str, str],
) -> tuple[dict[str, str], tuple[str, ...], tuple[str, ...]]:
    """The overrides by Sleuth stage (blank texts leave Sleuth's own), the dialect's keys with
    no stage here, and the keys the dialect does not define."""
    stages = {PROMPT_STAGES[k]: t for k, t in overrides.items() if k in PROMPT_STAGES and t.strip()}
    ignored = tuple(k for k in overrides if k in UNAPPLIED_PROMPTS)
    unknown = tuple(k for k in overrides if k not in PROMPT_STAGES and k not in UNAPPLIED_PROMPTS)
    return stages, ignored, unknown


def _shown(key: str) -> str:
    return key if len(key) <= SHOWN_KEY_CHARS else key[:SHOWN_KEY_CHARS] + "…"
