"""The web-app dialect's fields as Sleuth setting values: providers at their documented base
URLs with the server's keys, search providers, prompt overrides, and clear errors."""

from __future__ import annotations

import pytest

from sleuth.errors import UsageError
from sleuth.limits import MAX_PROMPT_OVERRIDE_CHARS, MAX_PROMPT_OVERRIDES
from sleuth.server.webapp.request import LLM_SETTINGS, map_request, parse
from sleuth.types import PromptOverrides

ENV = {"DEEPSEEK_API_KEY": "sk-deep", "ANTHROPIC_API_KEY": "sk-ant"}


def mapped(**fields: object) -> dict[str, object]:
    return map_request(parse({"query": "Q?", **fields}), ENV).values


def test_providers_map_to_wire_formats_urls_and_server_keys() -> None:
    deep = mapped(provider="deepseek", thinkingModel="deepseek-reasoner", taskModel="deepseek-chat")
    assert deep == {
        "deep": 2, "api_format": "openai", "base_url": "https://api.deepseek.com/v1",
        "api_key": "sk-deep", "model": "deepseek-chat",
        "plan_model": "deepseek-reasoner", "critic_model": "deepseek-reasoner", "images": True,
    }  # fmt: skip
    anthropic = mapped(provider="Anthropic", taskModel="claude-sonnet-4-6")
    assert anthropic["api_format"] == "anthropic"
    assert anthropic["plan_model"] == "claude-sonnet-4-6"  # no thinkingModel: the task model
    assert mapped(provider="ollama", taskModel="qwen3")["base_url"] == "http://127.0.0.1:11434/v1"
    own = map_request(parse({"query": "Q?", "provider": "openaicompatible"}), ENV)
    assert (
        own.values == {"deep": 2, "images": True} and own.dropped == ()
    )  # the server's endpoint stays
    xai = {"query": "Q?", "provider": "xai", "taskModel": "grok-4"}
    named = map_request(parse(xai), {"XAI_API_KEY": "k"})
    assert named.dropped == LLM_SETTINGS  # the operator's endpoint does not leak into it


def test_google_and_azure_map_to_their_providers_with_the_servers_credentials() -> None:
    env = {"GOOGLE_API_KEY": "g-key", "AZURE_OPENAI_ENDPOINT": "https://contoso.openai.azure.com",
           "AZURE_OPENAI_API_KEY": "az-key"}  # fmt: skip
    fields = {"query": "Q?", "provider": "google", "thinkingModel": "gemini-2.5-pro",
              "taskModel": "gemini-2.5-flash"}  # fmt: skip
    google = map_request(parse(fields), env)
    assert google.values == {
        "deep": 2, "api_format": "google", "base_url": "https://generativelanguage.googleapis.com",
        "api_key": "g-key", "model": "gemini-2.5-flash",
        "plan_model": "gemini-2.5-pro", "critic_model": "gemini-2.5-pro", "images": True,
    }  # fmt: skip
    assert google.dropped == LLM_SETTINGS
    azure = map_request(parse({"query": "Q?", "provider": "azure", "taskModel": "writer"}), env)
    assert azure.values["api_format"] == "azure"
    assert azure.values["base_url"] == "https://contoso.openai.azure.com"
    assert azure.values["api_key"] == "az-key" and azure.values["model"] == "writer"
    entra = {"AZURE_OPENAI_ENDPOINT": "https://contoso.openai.azure.com",
             "AZURE_OPENAI_AD_TOKEN": "entra-token"}  # fmt: skip
    by_token = map_request(parse({"query": "Q?", "provider": "azure", "taskModel": "w"}), entra)
    assert by_token.values["azure_ad_token"] == "entra-token"
    assert "api_key" not in by_token.values


@pytest.mark.parametrize(
    ("given", "images"),
    [
        ({}, True),
        ({"enableCitationImage": False}, False),
        ({"enableCitationImage": "false"}, False),
    ],
)
def test_enable_citation_image_is_the_images_setting_on_by_default(
    given: dict[str, object], images: bool
) -> None:
    """The seed's default is on; the live URL's query parameter arrives as text."""
    assert mapped(**given)["images"] is images


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"provider": "google", "taskModel": "gemini-2.5-pro"}, "GEMINI_API_KEY or GOOGLE_API"),
        ({"provider": "azure", "taskModel": "writer"}, "AZURE_OPENAI_ENDPOINT"),
        ({"provider": "pollinations", "taskModel": "m"}, "Pollinations"),
        ({"provider": "openai", "taskModel": "gpt-4o"}, "OPENAI_API_KEY"),
        ({"provider": "ollama"}, "taskModel is required"),
        ({"provider": "skynet"}, "not known"),
        ({"searchProvider": "bing"}, "bing"),
        (
            {"promptOverrides": {"finalReportPrompt": "x" * (MAX_PROMPT_OVERRIDE_CHARS + 1)}},
            f"promptOverrides: finalReportPrompt is {MAX_PROMPT_OVERRIDE_CHARS + 1} characters",
        ),
        (
            {"promptOverrides": {f"k{i}": "x" for i in range(MAX_PROMPT_OVERRIDES + 1)}},
            f"promptOverrides: {MAX_PROMPT_OVERRIDES + 1} keys; at most",
        ),
        ({"promptOverrides": "{not json"}, "promptOverrides"),
        ({"maxResult": 0}, "maxResult"),
        ({"query": "   "}, "query"),
        ({"apiKey": "sk-1"}, "apiKey"),
    ],
)
def test_bad_fields_are_refused_by_name(fields: dict[str, object], words: str) -> None:
    with pytest.raises(UsageError, match=words):
        map_request(parse({"query": "Q?", **fields}), {})


def test_search_language_results_and_prompt_overrides() -> None:
    got = map_request(
        parse({
            "query": "Q?", "searchProvider": "tavily", "language": "fr", "maxResult": "7",
            "promptOverrides": '{"systemInstruction": "Be terse.", "reviewPrompt": "Be strict.",'
                               ' "citationRulesPrompt": "Cite nothing.",'
                               ' "finalReportPrompt": "Use tables."}',
        }),
        {},
    )  # fmt: skip
    assert got.values["search"] == "tavily" and got.values["language"] == "fr"
    assert got.values["max_results"] == 7
    assert got.values["prompt_overrides"] == PromptOverrides(
        system="Be terse.", critic="Be strict.", citing="Cite nothing.", task="Use tables."
    )
    assert "style" not in got.values and "guidance" not in got.values
    assert got.ignored_prompts == got.unknown_prompts == () and got.warnings == []
    assert "search" not in mapped(searchProvider="model")  # the server's default search


@pytest.mark.parametrize(
    ("provider", "search"), [("openai", "openai"), ("google", "gemini"), ("deepseek", None)]
)
def test_model_search_is_the_providers_own_when_it_has_one(
    provider: str, search: str | None
) -> None:
    env = {**ENV, "OPENAI_API_KEY": "sk-o", "GEMINI_API_KEY": "g"}
    fields = {"query": "Q?", "provider": provider, "taskModel": "m", "searchProvider": "model"}
    assert map_request(parse(fields), env).values.get("search") == search
    for name in ("firecrawl", "crw", "bocha"):
        assert map_request(parse({**fields, "searchProvider": name}), env).values["search"] == name


SEED_KEYS = (  # the web-app seed's promptOverrides keys, in its order
    "systemInstruction", "outputGuidelinesPrompt", "systemQuestionPrompt", "reportPlanPrompt",
    "serpQueriesPrompt", "queryResultPrompt", "citationRulesPrompt", "searchResultPrompt",
    "searchKnowledgeResultPrompt", "reviewPrompt", "finalReportCitationImagePrompt",
    "finalReportReferencesPrompt", "finalReportPrompt",
)  # fmt: skip


def test_every_seed_key_replaces_a_stage_or_is_reported_and_unknown_keys_are_reported() -> None:
    overrides = {key: f"text of {key}" for key in SEED_KEYS} | {"madeUpPrompt": "x"}
    got = map_request(parse({"query": "Q?", "promptOverrides": overrides}), {})
    assert got.values["prompt_overrides"] == PromptOverrides(
        system="text of systemInstruction",
        citing="text of citationRulesPrompt",
        task="text of finalReportPrompt",
        form="text of outputGuidelinesPrompt",
        plan="text of reportPlanPrompt",
        queries="text of serpQueriesPrompt",
        critic="text of reviewPrompt",
    )
    assert set(got.ignored_prompts) == {
        "systemQuestionPrompt", "queryResultPrompt", "searchResultPrompt",
        "searchKnowledgeResultPrompt", "finalReportCitationImagePrompt",
        "finalReportReferencesPrompt",
    }  # fmt: skip
    assert got.unknown_prompts == ("madeUpPrompt",)
    assert len(got.warnings) == 7
    assert "promptOverrides.madeUpPrompt is not a prompt key of this API" in got.warnings[-1]
    assert "promptOverrides.finalReportReferencesPrompt is not applied" in "".join(got.warnings)


def test_a_blank_override_keeps_sleuths_own_prompt() -> None:
    got = mapped(promptOverrides={"systemInstruction": "  ", "reviewPrompt": "Be strict."})
    assert got["prompt_overrides"] == PromptOverrides(critic="Be strict.")
