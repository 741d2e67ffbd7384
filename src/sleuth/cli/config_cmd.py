"""`sleuth config show|path` — the effective settings and where each one came from."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from ..settings.files import config_path
from .configmap import (
    CONFIGURABLE,
    Checked,
    catalogue,
    chosen_profile,
    complete_profiles,
    defaults_for,
    load_checked,
)
from .options import flatten, option, table_option
from .render import echo

SECRET_KEYS = frozenset({"api_key"})


@dataclass(frozen=True, slots=True)
class Setting:
    key: str
    value: Any
    source: str  # default | file | profile | env


@click.group("config")
def config() -> None:
    """Inspect the config file ($SLEUTH_HOME/config.toml) and profiles.

    Precedence, lowest first: built-in defaults < config file < profile < env < flags.

    \b
    Examples:
      sleuth config path
      sleuth config show
      sleuth config show --profile=thorough --json
    """


@config.command("path")
def path_cmd() -> None:
    """Print where the config file is read from (it need not exist).

    \b
    Examples:
      sleuth config path
      $EDITOR "$(sleuth config path)"
    """
    echo(str(config_path()))


@config.command("show")
@option(
    "--profile",
    metavar="NAME",
    envvar="SLEUTH_PROFILE",
    show_envvar=True,
    shell_complete=complete_profiles,
    help="Profile to apply.",
)
@click.option(
    "--command",
    "command_name",
    type=click.Choice(CONFIGURABLE),
    default="ask",
    show_default=True,
    help="Show the settings of this command.",
)
@table_option("json", dest="as_json")
@click.pass_context
def show_cmd(ctx: click.Context, profile: str | None, command_name: str, as_json: bool) -> None:
    """Print the effective settings of a command and where each came from.

    Sources: default, file (config.toml), profile, env (SLEUTH_*). Flags given on a real
    command line override all of them.

    \b
    Examples:
      sleuth config show
      sleuth --profile fast config show --command=search
      sleuth config show --profile=strict --json
    """
    group = ctx.find_root().command
    assert isinstance(group, click.Group)
    checked = load_checked(group, chosen_profile(ctx, profile))
    settings = effective(group, command_name, checked)
    if as_json:
        echo(json.dumps(_json(checked, command_name, settings), indent=2))
    else:
        echo(_text(checked, command_name, settings), nl=False)


def effective(group: click.Group, command_name: str, checked: Checked) -> list[Setting]:
    """Let click itself resolve the command's parameters, so `show` cannot disagree with a run."""
    command = group.get_command(click.Context(group), command_name)
    assert command is not None, command_name
    defaults = defaults_for(group, checked, command_name)
    ctx = command.make_context(command_name, [], default_map=defaults, resilient_parsing=True)
    out: list[Setting] = []
    for key in sorted(catalogue(group).values(), key=lambda k: k.name):
        for owner, param in key.params:
            if owner is command and param.name:
                source = _source(ctx.get_parameter_source(param.name), key.name, checked)
                out.append(Setting(key.name, _plain(key.name, ctx.params.get(param.name)), source))
    return out


def _source(source: ParameterSource | None, key: str, checked: Checked) -> str:
    if source is ParameterSource.ENVIRONMENT:
        return "env"
    if source is ParameterSource.DEFAULT_MAP:
        return "profile" if key in checked.profile else "file"
    return "default"


def _plain(key: str, value: Any) -> Any:
    """A JSON-ready value: flattened lists, paths as text, secrets masked, unset as null."""
    if isinstance(value, tuple):
        return list(flatten(value))
    if isinstance(value, Path):
        return str(value)
    if key in SECRET_KEYS and value:
        return "****" + str(value)[-4:]
    return value if isinstance(value, str | int | float | bool) else None


def _json(checked: Checked, command: str, settings: list[Setting]) -> dict[str, Any]:
    layers = checked.layers
    return {
        "config_file": str(layers.path),
        "exists": layers.path.exists(),
        "profile": layers.profile_name,
        "profile_builtin": layers.profile_builtin,
        "command": command,
        "settings": {s.key: {"value": s.value, "source": s.source} for s in settings},
    }


def _text(checked: Checked, command: str, settings: list[Setting]) -> str:
    layers = checked.layers
    found = "" if layers.path.exists() else " (not found)"
    profile = layers.profile_name or "none"
    if layers.profile_builtin:
        profile += " (built-in)"
    lines = [f"# config file: {layers.path}{found}", f"# profile: {profile}", f"[{command}]"]
    width = max((len(s.key) for s in settings), default=0)
    for s in settings:
        value = "null" if s.value is None else json.dumps(s.value, ensure_ascii=False)
        lines.append(f"{s.key:<{width}} = {value}  # {s.source}")
    return "\n".join(lines) + "\n"


COMMANDS = [config]
