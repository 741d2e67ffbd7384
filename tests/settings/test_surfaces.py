"""Every surface that names settings is held to the table (and the limits to `sleuth.limits`):
the MCP research tool's arguments, the web-app dialect's request model, the web UI's settings
page and the REST request model. A field added to one of them without its row fails here."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from mcp import Client

from sleuth.app.application import Sleuth
from sleuth.limits import MAX_QUESTION_CHARS
from sleuth.server.mcp.local import LocalRunner
from sleuth.server.mcp.tools import ARGUMENTS, build
from sleuth.server.models import ResearchBody
from sleuth.server.ui.saved import FIELDS, SECRETS
from sleuth.server.webapp.request import WebAppConfig, map_request
from sleuth.settings import Settings
from sleuth.settings.table import SETTINGS
from sleuth.types import ResearchRequest

REQUEST_FIELDS = {f.name for f in fields(ResearchRequest)}
SETTINGS_FIELDS = {f.name for f in fields(Settings)}


async def tool_schemas() -> dict[str, dict[str, Any]]:
    async with Sleuth(Settings()) as app, Client(build(LocalRunner(app, {}))) as client:
        listed = await client.list_tools()
    return {tool.name: tool.input_schema for tool in listed.tools}


def _plain(prop: dict[str, Any]) -> dict[str, Any]:
    """The non-null branch of an optional argument."""
    branches = [b for b in prop.get("anyOf", [prop]) if b.get("type") != "null"]
    return {**branches[0], **{k: v for k, v in prop.items() if k != "anyOf"}}


async def test_the_mcp_research_arguments_are_table_settings() -> None:
    schema = (await tool_schemas())["research"]
    setting_of = {argument: name for name, argument in ARGUMENTS.items()}
    for argument, prop in schema["properties"].items():
        if argument == "question":
            continue
        name = setting_of.get(argument, argument)
        assert name in SETTINGS, f"research argument {argument!r} is no setting of the table"
        entry, plain = SETTINGS[name], _plain(prop)
        if entry.choices:
            assert tuple(plain["enum"]) == entry.choices, argument
        if entry.kind in ("int", "float") and entry.low is not None:
            assert plain.get("minimum") == entry.low, argument
        if entry.kind in ("int", "float") and entry.high is not None:
            assert plain.get("maximum") == entry.high, argument
        assert prop.get("description") or plain.get("description") or entry.kind == "int", argument
    assert schema["properties"]["depth"]["enum"] == ["quick", "deep"]


def test_the_web_app_request_maps_onto_settings_and_the_question_limit() -> None:
    config = WebAppConfig.model_validate(
        {
            "query": "q",
            "provider": "ollama",
            "thinkingModel": "t",
            "taskModel": "m",
            "searchProvider": "searxng",
            "language": "de",
            "maxResult": 5,
            "promptOverrides": {"systemInstruction": "x", "finalReportPrompt": "y"},
        }
    )
    mapped = map_request(config, {})
    loose = set(mapped.values) - set(SETTINGS)
    assert loose <= REQUEST_FIELDS | SETTINGS_FIELDS, loose
    assert WebAppConfig.model_json_schema()["properties"]["query"]["maxLength"] == (
        MAX_QUESTION_CHARS
    )


def test_the_ui_settings_page_fields_are_table_settings() -> None:
    # How runs are assembled (engine) or a default every UI run takes (run: search_lang);
    # never a server, output or session setting.
    for name in FIELDS:
        entry = SETTINGS.get(name)
        assert entry is not None and entry.target in ("engine", "run"), name
    assert {n for n in FIELDS if SETTINGS[n].secret} == SECRETS == {"api_key"}


def test_the_rest_request_question_limit_is_the_shared_one() -> None:
    query = ResearchBody.model_json_schema(by_alias=True)["properties"]["query"]
    assert query["maxLength"] == MAX_QUESTION_CHARS


def test_the_limits_are_written_once() -> None:
    """The question limit, what a bare deep means and the run limits are defined in
    sleuth/limits.py only."""
    import re
    from pathlib import Path

    src = Path(__file__).parents[2] / "src" / "sleuth"
    defined = re.compile(
        r"^\s*(MAX_QUESTION(?:_CHARS)?|DEEP_ROUNDS|QUICK_LIMIT_S|DEEP_LIMIT_S)\s*=\s*[\d.]", re.M
    )
    where = sorted(
        str(p.relative_to(src))
        for p in src.rglob("*.py")
        if defined.search(p.read_text(encoding="utf-8"))
    )
    assert where == ["limits.py"]
