"""Config file and profile values become click's `default_map`, scoped per command.

Click already resolves flags > env > `ctx.default_map` > built-in defaults, so putting the file
(and the profile over it) into the default map of each run command gives the documented
precedence for free. Scoping matters: `tags = [...]` in the file lands in `ask`'s map, never in
`sessions ls`, so the config labels new runs but never filters listings.

Keys mirror the long flag names (`max_sources` for `--max-sources`); a `no_X` flag can also be
written `X = false`; `tags` is `--tag`. Every value goes through the same click type as the flag.
"""

from __future__ import annotations

import datetime as dt
import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import click
from click.core import ParameterSource
from click.shell_completion import CompletionItem

from ..errors import ConfigError
from ..settings.files import (
    ConfigFile,
    Layers,
    config_error,
    config_path,
    read_config,
    select_profile,
)
from .options import env

CONFIGURABLE = ("ask", "continue", "rerun", "resume", "search", "doctor")
ALIASES = {"tags": "tag"}
PATH_KEYS = frozenset({"include", "schema", "out", "browser_executable"})
GROUP_PROFILE = "sleuth.group_profile"  # a --profile given before the command, in ctx.meta
NOT_CONFIG = frozenset({"help", "profile", "version"})


@dataclass(frozen=True, slots=True)
class Key:
    """A config key and the options it sets, one per command that has the flag."""

    name: str
    params: tuple[tuple[click.Command, click.Option], ...]

    @property
    def option(self) -> click.Option:
        return self.params[0][1]


@dataclass(frozen=True, slots=True)
class Checked:
    """The config layers after every key and value was checked, by config key."""

    layers: Layers
    file: Mapping[str, Any]
    profile: Mapping[str, Any]


def key_name(option: click.Option) -> str:
    longs = [o for o in option.opts if o.startswith("--")]
    return max(longs, key=len)[2:].replace("-", "_") if longs else str(option.name)


@cache
def catalogue(group: click.Group) -> dict[str, Key]:
    found: dict[str, list[tuple[click.Command, click.Option]]] = {}
    for name in CONFIGURABLE:
        command = group.get_command(click.Context(group), name)
        for param in command.params if command else ():
            if isinstance(param, click.Option) and param.name not in NOT_CONFIG:
                found.setdefault(key_name(param), []).append((command, param))  # type: ignore[arg-type]
    return {name: Key(name, tuple(params)) for name, params in found.items()}


def _resolve(raw: str, keys: Mapping[str, Key]) -> tuple[str, bool] | None:
    """The canonical key for `raw`, and whether its boolean is inverted (`cache = false`)."""
    name = ALIASES.get(raw, raw)
    if name in keys:
        return name, False
    negated = f"no_{name}"
    if negated in keys and keys[negated].option.is_bool_flag:
        return negated, True
    return None


def _unknown(raw: str, keys: Mapping[str, Key]) -> str:
    close = difflib.get_close_matches(raw, [*keys, *ALIASES], n=1, cutoff=0.6)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return f"unknown key '{raw}'{hint}"


def _scalar(key: Key, value: Any) -> Any:
    if isinstance(value, bool | dict | list):
        raise click.BadParameter("expected a single text or number value")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()  # TOML dates are native; the flag takes their ISO text
    if key.name in PATH_KEYS and isinstance(value, str):
        return os.path.expanduser(value)  # no shell expands `~` inside a config file
    return value


def _shaped(key: Key, value: Any) -> Any:
    """Map a TOML value onto what the flag would receive, refusing the wrong kind."""
    option = key.option
    if option.is_flag:
        if not isinstance(value, bool):
            raise click.BadParameter("expected true or false")
        return value
    if option._flag_needs_value and isinstance(value, bool):  # `deep = true` / `deep = false`
        return option.flag_value if value else None
    if option.multiple:
        return [_scalar(key, item) for item in (value if isinstance(value, list) else [value])]
    if isinstance(value, list):
        raise click.BadParameter("expected one value, not a list")
    return _scalar(key, value)


def _checked_value(key: Key, value: Any) -> Any:
    shaped = _shaped(key, value)
    for command, param in key.params:
        param.type_cast_value(click.Context(command), shaped)
    return shaped


def check_layer(
    layer: Mapping[str, Any], keys: Mapping[str, Key], layers: Layers, profile: str | None
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for raw, value in layer.items():
        found = _resolve(raw, keys)
        if found is None:
            raise config_error(layers.path, _unknown(raw, keys), profile)
        name, invert = found
        try:
            if invert and not isinstance(value, bool):
                raise click.BadParameter("expected true or false")
            out[name] = _checked_value(keys[name], (not value) if invert else value)
        except click.BadParameter as exc:
            raise config_error(layers.path, f"{raw}: {exc.message}", profile) from exc
    return out


def load_checked(group: click.Group, profile: str | None) -> Checked:
    layers = select_profile(read_config(), profile)
    keys = catalogue(group)
    return Checked(
        layers,
        check_layer(layers.file, keys, layers, None),
        check_layer(layers.profile, keys, layers, layers.profile_name),
    )


def defaults_for(group: click.Group, checked: Checked, command_name: str) -> dict[str, Any]:
    """The default map of one command: the file's values with the profile's on top."""
    out: dict[str, Any] = {}
    for layer in (checked.file, checked.profile):
        for name, value in layer.items():
            for command, param in catalogue(group)[name].params:
                if command.name == command_name and param.name:
                    out[param.name] = value
    return out


def chosen_profile(ctx: click.Context, value: str | None) -> str | None:
    """A command's --profile beats one given before the command, which beats SLEUTH_PROFILE."""
    if ctx.get_parameter_source("profile") is ParameterSource.COMMANDLINE:
        return value
    before: str | None = ctx.meta.get(GROUP_PROFILE)
    return before or value


def apply_profile(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Eager callback of a run command's --profile: load the config into its default map."""
    if ctx.resilient_parsing or ctx.parent is None:
        return value
    group = ctx.parent.command
    if not isinstance(group, click.Group) or ctx.info_name is None:
        return value
    checked = load_checked(group, chosen_profile(ctx, value))
    ctx.default_map = defaults_for(group, checked, ctx.info_name)
    return value


def remember_group_profile(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> str | None:
    if ctx.get_parameter_source("profile") is ParameterSource.COMMANDLINE:
        ctx.meta[GROUP_PROFILE] = value
    return value


def complete_profiles(
    ctx: click.Context, param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    try:
        config = read_config()
    except ConfigError:  # completion must not fail on a broken file: offer the built-ins
        config = ConfigFile(config_path())
    return [CompletionItem(n) for n in sorted(config.all_profiles()) if n.startswith(incomplete)]


PROFILE_HELP = (
    "Settings profile from config.toml [profiles.NAME], or a built-in: "
    "deep, thorough, fast, cheap, strict."
)


def profile_option(callback: Any) -> click.Option:
    return click.Option(
        ["--profile"],
        metavar="NAME",
        envvar=env("profile"),
        show_envvar=True,
        is_eager=True,
        expose_value=False,
        callback=callback,
        shell_complete=complete_profiles,
        help=PROFILE_HELP,
    )
