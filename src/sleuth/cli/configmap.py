"""A command's settings: the one loader (`sleuth.settings.resolve`) with the flags the user
typed on top — as every other face resolves them.

Click also reads each option's variable (so `--help` can show it, and commands that do not
resolve settings keep their twins), but a resolving command hands the loader only the
parameters whose source is the command line: a variable, a default or a config value is never
mistaken for a flag (`batch --queue` with SLEUTH_SEARCH set in the shell is not `--search`).

Config keys mirror the long flag names (`max_sources` for `--max-sources`); a `no_X` flag can
also be written `X = false`; `tags` is `--tag`. A few keys are one command's own option
(`limit` of `search`): the loader keeps them as written and the command checks them with the
flag's own type.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource
from click.shell_completion import CompletionItem

from ..errors import ConfigError
from ..settings.files import ConfigFile, config_error, config_path, read_config
from ..settings.resolve import Resolved, resolve
from ..settings.table import COMMAND_KEYS, SETTINGS
from .options import env, flatten, note

if TYPE_CHECKING:
    from ..settings import Settings

# Commands that run with resolved settings (each takes --profile after its name too).
CONFIGURABLE = (
    "ask", "continue", "rerun", "resume", "search", "doctor", "diff", "graph",
    "serve", "ui", "mcp", "worker", "batch", "eval",
)  # fmt: skip
GROUP_CONFIG = "sleuth.group_config"  # a --config given before the command
COMMAND_CONFIG = "sleuth.command_config"  # one given after it
GROUP_PROFILE = "sleuth.group_profile"  # a --profile given before the command, in ctx.meta
COMMAND_PROFILE = "sleuth.command_profile"  # one given after it


def load(ctx: click.Context | None = None, fixed: Mapping[str, Any] | None = None) -> Resolved:
    """The running command's settings: defaults < config file < profile < env < typed flags
    (< `fixed`, values the command itself decides)."""
    ctx = ctx or click.get_current_context()
    given = {"config": chosen_config(ctx), **typed(ctx), **(fixed or {})}
    return resolve(None, chosen_profile(ctx), given, note=note)


def store_settings() -> Settings:
    """Settings for a command that only opens the stores (sessions, show, export): resolved
    like any run's, so sessions_dir means the same folder; with a broken config file, the
    environment's alone, with a note (a typo in config.toml must not hide saved sessions)."""
    from ..settings import Settings

    try:
        return resolve(None, None, {"config": _group_config()}, note=note).settings()
    except ConfigError as exc:
        note(f"{exc}; using the environment's settings")
        sessions_dir = os.environ.get("SLEUTH_SESSIONS_DIR", "").strip() or None
        return Settings(sessions_dir=sessions_dir)


def _group_config() -> str | None:
    ctx = click.get_current_context(silent=True)
    return None if ctx is None else chosen_config(ctx)


def typed(ctx: click.Context) -> dict[str, Any]:
    """The table settings among the flags the user typed, by setting name."""
    out: dict[str, Any] = {}
    for param in ctx.command.params:
        name = getattr(param, "setting", None)
        if name is None or param.name is None:
            continue
        if ctx.get_parameter_source(param.name) is not ParameterSource.COMMANDLINE:
            continue
        value = ctx.params.get(param.name)
        out[name] = flatten(value or ()) if SETTINGS[name].kind == "list" else value
    return out


def own(ctx: click.Context, resolved: Resolved, name: str) -> Any:
    """One of the command's own options: as typed, else the config file's key for it (checked
    like the flag), else the flag's default."""
    value = ctx.params[name]
    found = resolved.own.get(name)
    if (
        found is None
        or COMMAND_KEYS.get(name) != ctx.info_name
        or ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE
    ):
        return value
    raw, source = found
    profile = resolved.layers.profile_name if source == "profile" else None
    param = next(p for p in ctx.command.params if p.name == name)
    try:
        return param.type_cast_value(ctx, _shaped(param, raw))
    except click.BadParameter as exc:
        raise config_error(resolved.layers.path, f"{name}: {exc.message}", profile) from exc


def _shaped(param: click.Parameter, raw: Any) -> Any:
    flag = isinstance(param, click.Option) and param.is_flag
    if flag != isinstance(raw, bool):
        raise click.BadParameter("expected true or false" if flag else "expected one value")
    if isinstance(raw, list | dict):
        raise click.BadParameter("expected one value, not a list")
    return raw


def own_defaults(command: click.Command, resolved: Resolved) -> Mapping[str, tuple[Any, str]]:
    """The command's own config keys with their values and sources (for `config show`)."""
    out: dict[str, tuple[Any, str]] = {}
    for param in command.params:
        if param.name and COMMAND_KEYS.get(param.name) == command.name:
            ctx = click.Context(command, info_name=command.name)
            ctx.params = {param.name: param.get_default(ctx)}
            value = own(ctx, resolved, param.name)
            source = resolved.own[param.name][1] if param.name in resolved.own else "default"
            out[param.name] = (value, source)
    return out


def chosen_profile(ctx: click.Context) -> str | None:
    """A command's --profile beats one given before the command; without either, the loader
    takes SLEUTH_PROFILE, then the file's `profile` key."""
    return ctx.meta.get(COMMAND_PROFILE) or ctx.meta.get(GROUP_PROFILE)


def remember_profile(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Callback of a command's --profile (and the group's): note a profile typed there."""
    if ctx.get_parameter_source("profile") is ParameterSource.COMMANDLINE:
        ctx.meta[GROUP_PROFILE if ctx.parent is None else COMMAND_PROFILE] = value
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


def profile_option() -> click.Option:
    return click.Option(
        ["--profile"],
        metavar="NAME",
        envvar=env("profile"),
        show_envvar=True,
        is_eager=True,
        expose_value=False,
        callback=remember_profile,
        shell_complete=complete_profiles,
        help=PROFILE_HELP,
    )


def chosen_config(ctx: click.Context) -> str | None:
    """The config file typed after the command, else before it; None: the loader takes
    SLEUTH_CONFIG, then $SLEUTH_HOME/config.toml."""
    return ctx.meta.get(COMMAND_CONFIG) or ctx.meta.get(GROUP_CONFIG)


def remember_config(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Callback of --config (the group's and a command's): note a file typed there."""
    if ctx.get_parameter_source("config") is ParameterSource.COMMANDLINE and value is not None:
        ctx.meta[GROUP_CONFIG if ctx.parent is None else COMMAND_CONFIG] = str(value)
    return value


def config_option() -> click.Option:
    """--config, from the table's `config` row; like --profile it is read before the command's
    other settings (it says where they come from), so it is noted here, not typed."""
    entry = SETTINGS["config"]
    return click.Option(
        [entry.flag],
        metavar=entry.metavar,
        envvar=entry.env_name,
        show_envvar=True,
        is_eager=True,
        expose_value=False,
        callback=remember_config,
        type=click.Path(dir_okay=False),
        help=entry.help,
    )
