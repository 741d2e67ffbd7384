"""From setting values (by their table names) to what a run needs: engine `Settings`, the
`ResearchRequest` and how to save it. Every interface hands the application the same values —
the CLI from flags, the server from JSON fields, a script from keyword arguments.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from ..disk.read import LocalFileError, read_regular
from ..errors import UsageError
from ..settings import Settings
from ..settings.table import SETTINGS
from ..settings.values import coerce
from ..types import ResearchRequest

# Table settings whose request field has another name or shape.
_RENAMED = {"allow_domain": "allow_domains", "deny_domain": "deny_domains"}
_SPECIAL = frozenset({"since", "deep", "no_dedupe", "no_verify_cites", "schema", "max_runtime"})
_SESSION = frozenset({"no_sessions", "tag"})
MAX_SCHEMA_BYTES = 1_000_000


@dataclass(frozen=True, slots=True)
class Saving:
    """How a run is saved as a session."""

    enabled: bool = True
    tags: tuple[str, ...] = ()
    parent_id: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    org: str | None = None  # the organization a service run belongs to


@dataclass(frozen=True, slots=True)
class Prepared:
    settings: Settings
    request: ResearchRequest
    saving: Saving


def given_values(base: Settings, values: Mapping[str, Any]) -> dict[str, Any]:
    """The values a run is prepared from besides the base's engine settings: the base's run
    defaults (what the config file, profile and environment set), then `values` (None: not
    given, so the default stands)."""
    return {**base.run_defaults, **{k: v for k, v in values.items() if v is not None}}


def prepare(question: str, base: Settings, values: Mapping[str, Any]) -> Prepared:
    """Split `values` into engine settings, the request and saving; unknown names are refused."""
    given = given_values(base, values)
    inline = given.pop("schema") if isinstance(given.get("schema"), dict) else None
    table = {
        k: coerce(k, v)
        for k, v in given.items()
        if k in SETTINGS and SETTINGS[k].target not in ("output", "server")
    }
    if inline is not None:  # a schema given as JSON (the API) rather than as a file path
        table["schema"] = inline
    loose = {k: v for k, v in given.items() if k not in SETTINGS}
    # Interface-only settings (json, out, verbose, ...) are the caller's business.
    settings_fields = {f.name for f in fields(Settings)}
    request_fields = {f.name for f in fields(ResearchRequest)} - {"question"}
    unknown = set(loose) - settings_fields - request_fields
    if unknown:
        raise UsageError(f"unknown option(s): {', '.join(sorted(unknown))}")
    engine = {k: v for k, v in table.items() if SETTINGS[k].target == "engine"}
    engine.update({k: v for k, v in loose.items() if k in settings_fields})
    settings = replace(base, **_engine_values(engine), since_set="since" in table)
    request_values = _request_values(table)
    request_values.update({k: v for k, v in loose.items() if k in request_fields})
    request = ResearchRequest(question=question, **request_values)
    return Prepared(settings, request, _saving(table, request))


def _engine_values(values: dict[str, Any]) -> dict[str, Any]:
    out = dict(values)
    if out.get("browser_executable") is not None:
        out["browser_executable"] = str(out["browser_executable"])
    if "include" in out:
        out["include"] = tuple(str(p) for p in out["include"])
    return out


def _request_values(table: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in table.items():
        if SETTINGS[name].target == "run" and name not in _SPECIAL:
            out[_RENAMED.get(name, name)] = value
    if "since" in table:
        out["since"] = table["since"]
    if table.get("deep") is not None:
        out["depth"], out["deep_rounds"] = "deep", table["deep"]
    if table.get("no_dedupe"):
        out["dedupe_threshold"] = None
    if table.get("no_verify_cites"):
        out["verify_cites"] = False
    if table.get("max_runtime") is not None:
        out["max_runtime_s"] = table["max_runtime"]
    if table.get("schema") is not None:
        out["schema"] = load_schema(table["schema"])
    return out


def _saving(table: Mapping[str, Any], request: ResearchRequest) -> Saving:
    kept = {k: table[k] for k in ("search", "max_sources", "source_authority") if k in table}
    # The citation check's threshold, so an evidence pack re-checks with the run's own.
    kept["cite_min_recall"] = request.cite_min_recall
    return Saving(not table.get("no_sessions", False), tuple(table.get("tag", ())), None, kept)


def load_schema(value: Any) -> dict[str, Any]:
    """A JSON Schema given inline (a dict) or as a file path."""
    from ..think.structured import check_schema

    if isinstance(value, dict):
        return check_schema(value)
    path = Path(str(value))
    try:
        # A regular file only: a FIFO given as the schema used to block the run forever.
        text = read_regular(path, MAX_SCHEMA_BYTES, "schema").decode("utf-8")
    except LocalFileError as exc:
        raise UsageError(f"schema: {path} {exc.problem}", setting="schema") from exc
    except UnicodeDecodeError:
        raise UsageError(f"schema: {path} is not UTF-8 text", setting="schema") from None
    try:
        schema = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"schema: {path} is not JSON ({exc.msg} at line {exc.lineno})", setting="schema"
        ) from exc
    except RecursionError:
        raise UsageError(f"schema: {path} is nested too deeply", setting="schema") from None
    return check_schema(schema)
