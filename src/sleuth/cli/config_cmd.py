"""`sleuth config show|path` — the effective settings and where each one came from."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from ..settings.files import config_path
from ..settings.resolve import Resolved, resolve
from ..settings.table import SETTINGS
from .configmap import (
    CONFIGURABLE,
    chosen_config,
    chosen_profile,
    complete_profiles,
    own_defaults,
)
from .options import flatten, note, option, table_option
from .render import echo


@dataclass(frozen=True, slots=True)
class Setting:
    key: str
    value: Any
    source: str  # default | file | profile | env


@click.group("config")
def config() -> None:
    """Inspect the config file ($SLEUTH_HOME/config.toml, or --config / SLEUTH_CONFIG) and
    profiles.

    Precedence, lowest first: built-in defaults < config file < profile < env < flags.

    \b
    Examples:
      sleuth config path
      sleuth config show
      sleuth config show --profile=thorough --json
    """


@config.command("path")
@click.pass_context
def path_cmd(ctx: click.Context) -> None:
    """Print where the config file is read from (it need not exist).

    \b
    Examples:
      sleuth config path
      $EDITOR "$(sleuth config path)"
    """
    echo(str(config_path(None, chosen_config(ctx))))


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
    typed = ctx.get_parameter_source("profile") is ParameterSource.COMMANDLINE
    chosen = profile if typed else chosen_profile(ctx)
    resolved = resolve(None, chosen, {"config": chosen_config(ctx)}, note=note)
    settings = effective(group, command_name, resolved)
    if as_json:
        echo(json.dumps(_json(resolved, command_name, settings), indent=2))
    else:
        echo(_text(resolved, command_name, settings), nl=False)


def effective(group: click.Group, command_name: str, resolved: Resolved) -> list[Setting]:
    """The command's settings as the one loader resolves them (what a run of it uses, before
    any flag), and its own config keys."""
    command = group.get_command(click.Context(group), command_name)
    assert command is not None, command_name
    names = {p.setting for p in command.params if hasattr(p, "setting")}
    out = [
        Setting(name, _plain(name, resolved.values[name]), resolved.sources[name]) for name in names
    ]
    for name, (value, source) in own_defaults(command, resolved).items():
        out.append(Setting(name, _plain(name, value), source))
    return sorted(out, key=lambda s: s.key)


def _plain(key: str, value: Any) -> Any:
    """A JSON-ready value: flattened lists, paths as text, secrets masked, unset as null."""
    if isinstance(value, tuple):
        return list(flatten(value))
    if isinstance(value, Path):
        return str(value)
    if key in SETTINGS and SETTINGS[key].secret and value:
        return "****" + str(value)[-4:]
    return value if isinstance(value, str | int | float | bool) else None


def _json(resolved: Resolved, command: str, settings: list[Setting]) -> dict[str, Any]:
    layers = resolved.layers
    return {
        "config_file": str(layers.path),
        "exists": layers.path.exists(),
        "profile": layers.profile_name,
        "profile_builtin": layers.profile_builtin,
        "command": command,
        "settings": {s.key: {"value": s.value, "source": s.source} for s in settings},
    }


def _text(resolved: Resolved, command: str, settings: list[Setting]) -> str:
    layers = resolved.layers
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
