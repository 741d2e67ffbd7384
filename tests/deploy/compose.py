"""deploy/compose.yaml read as `docker compose` reads it, for the tests that lint it and the one
that runs its processes where no Docker daemon exists.

`load(env)` parses the file and interpolates `${VAR}`, `${VAR:-default}`, `${VAR-default}`,
`${VAR:?message}`, `${VAR?message}`, `${VAR:+other}` and `$$` as compose does, from `env` (what
`deploy/.env` and the shell would hold): a required variable that is unset or empty raises
`Missing` with compose's message. YAML anchors and `<<` merges are PyYAML's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

DEPLOY = Path(__file__).parents[2] / "deploy"
COMPOSE = DEPLOY / "compose.yaml"
ENV_EXAMPLE = DEPLOY / "env.example"
_VAR = re.compile(
    r"\$(?:(?P<dollar>\$)|\{(?P<name>[A-Za-z_]\w*)(?:(?P<op>:?[-?+])(?P<arg>[^}]*))?\}"
    r"|(?P<bare>[A-Za-z_]\w*))"
)


class Missing(Exception):
    """A `${VAR:?message}` variable is unset or empty: compose refuses to start."""


def interpolate(text: str, env: Mapping[str, str]) -> str:
    def one(match: re.Match[str]) -> str:
        if match["dollar"]:
            return "$"
        name = match["name"] or match["bare"]
        value, op, arg = env.get(name), match["op"] or "", match["arg"] or ""
        empty = value is None or (op.startswith(":") and value == "")
        if op.endswith("-"):
            return arg if empty else str(value)
        if op.endswith("?"):
            if empty:
                raise Missing(f"{name}: {arg}")
            return str(value)
        if op.endswith("+"):
            return "" if empty else arg
        return value or ""

    return _VAR.sub(one, text)


def _walk(node: Any, env: Mapping[str, str]) -> Any:
    if isinstance(node, str):
        return interpolate(node, env)
    if isinstance(node, list):
        return [_walk(item, env) for item in node]
    if isinstance(node, dict):
        return {key: _walk(value, env) for key, value in node.items()}
    return node


def load(env: Mapping[str, str]) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    walked: dict[str, Any] = _walk(data, env)
    return walked


def raw() -> dict[str, Any]:
    """The file parsed, nothing interpolated."""
    data: dict[str, Any] = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    return data


def variables(required_only: bool = False) -> set[str]:
    """The variables the file reads (only the `${VAR:?…}` ones, with `required_only`)."""
    found = set()
    for match in _VAR.finditer(COMPOSE.read_text(encoding="utf-8")):
        name = match["name"] or match["bare"]
        if name and (not required_only or (match["op"] or "").endswith("?")):
            found.add(name)
    return found


def example_env() -> dict[str, str]:
    """deploy/env.example as `NAME=value` pairs (comments and blank lines left out)."""
    pairs = {}
    for line in ENV_EXAMPLE.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            pairs[name.strip()] = value.strip()
    return pairs


def sleuth_services(services: Mapping[str, Any]) -> list[str]:
    """The services that run a `sleuth` command (the replicas and the worker)."""
    return [n for n, s in services.items() if (s.get("command") or [""])[0] == "sleuth"]
