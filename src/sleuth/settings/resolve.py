"""Settings resolved once, the same way for every face.

    resolve(env, profile, explicit) -> Resolved

applies, lowest first: built-in defaults (the table) < the config file ($SLEUTH_HOME/config.toml)
< the profile (the `profile` argument, else SLEUTH_PROFILE, else the file's `profile` key) <
the environment (each setting's SLEUTH_* twin) < explicit values (the flags a user typed, the
keyword arguments of `Sleuth.from_env`). The CLI, the library, the server and web UI, MCP,
`sleuth worker`, `batch` and `eval` all call it, so one environment means one set of values.

Every value, whichever layer gave it, is checked by the table's coercion (`values.coerce`); a bad
one is a ConfigError naming the file and key, or a UsageError naming the variable. A variable
that was renamed still works with a one-line notice; a retired one is reported, never ignored.
"""

from __future__ import annotations

import datetime as dt
import difflib
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from ..errors import UsageError
from .files import (
    ConfigFile,
    Layers,
    config_error,
    config_named,
    config_path,
    read_config,
    select_profile,
)
from .table import COMMAND_KEYS, RENAMED_ENV, RETIRED_ENV, SETTINGS, Setting, Target
from .values import coerce

if TYPE_CHECKING:
    from . import Settings

Source = Literal["default", "file", "profile", "env", "explicit"]
Note = Callable[[str], None]
ALIASES: Mapping[str, str] = MappingProxyType({"tags": "tag"})  # friendly config spellings
PATH_KEYS = frozenset(
    {"include", "schema", "out", "browser_executable", "cache_dir", "sessions_dir"}
)
log = logging.getLogger("sleuth.settings")


def _warn(message: str) -> None:
    log.warning(message)


@dataclass(frozen=True, slots=True)
class Resolved:
    """Every setting's value and which layer gave it; `own` holds the config keys of one
    command's own option (`limit`, ...) for that command to check."""

    values: Mapping[str, Any]
    sources: Mapping[str, Source]
    layers: Layers
    env: Mapping[str, str]
    own: Mapping[str, tuple[Any, Source]] = field(default_factory=dict)

    def given(self, *targets: Target) -> dict[str, Any]:
        """The values a layer above the defaults set, of these targets (all when none named)."""
        return {
            name: value
            for name, value in self.values.items()
            if self.sources[name] != "default" and (not targets or SETTINGS[name].target in targets)
        }

    def of(self, *targets: Target) -> dict[str, Any]:
        """Every value of these targets, defaults included."""
        return {n: v for n, v in self.values.items() if SETTINGS[n].target in targets}

    def settings(self) -> Settings:
        """What the application builds a run from: the engine settings, and the run and session
        values set above the defaults as every run's defaults."""
        from . import Settings

        engine = self.of("engine")
        engine["include"] = tuple(str(p) for p in engine["include"])
        private = self.env.get("SLEUTH_ALLOW_PRIVATE_NETWORK", "").strip().lower()
        return Settings(
            **engine,
            allow_private_network=private in ("1", "true"),
            env=dict(self.env),
            run_defaults=MappingProxyType(self.given("run", "session")),
        )


def resolve(
    env: Mapping[str, str] | None = None,
    profile: str | None = None,
    explicit: Mapping[str, Any] | None = None,
    *,
    config: ConfigFile | None = None,
    note: Note = _warn,
) -> Resolved:
    """The settings of `env` (default: this process's), its config file and `profile`, with
    `explicit` values (None: not given) on top."""
    env = dict(os.environ if env is None else env)
    if config is None:
        named = (explicit or {}).get("config")
        named = None if named is None else str(coerce("config", named))
        config = read_config(config_path(env, named), named_by=config_named(env, named))
    layers = select_profile(config, profile or env.get("SLEUTH_PROFILE") or None)
    file, file_own = file_layer(layers.file, layers, None)
    chosen, chosen_own = file_layer(layers.profile, layers, layers.profile_name)
    stack: tuple[tuple[Source, Mapping[str, Any]], ...] = (
        ("file", file),
        ("profile", chosen),
        ("env", env_layer(env, note)),
        ("explicit", explicit_layer(explicit or {})),
    )
    values: dict[str, Any] = {name: s.default for name, s in SETTINGS.items()}
    sources: dict[str, Source] = dict.fromkeys(SETTINGS, "default")
    for source, layer in stack:
        values.update(layer)
        sources.update(dict.fromkeys(layer, source))
    own: dict[str, tuple[Any, Source]] = {k: (v, "file") for k, v in file_own.items()}
    own.update({k: (v, "profile") for k, v in chosen_own.items()})
    return Resolved(MappingProxyType(values), MappingProxyType(sources), layers, env, own)


# -- the config file and its profiles ------------------------------------------------------


def file_layer(
    table: Mapping[str, Any], layers: Layers, profile: str | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A file's (or a profile's) settings checked, and its command-own keys as written."""
    out: dict[str, Any] = {}
    own: dict[str, Any] = {}
    for raw, value in table.items():
        try:
            if raw in COMMAND_KEYS:  # the command checks it with its flag's type
                own[raw] = value
                continue
            name, invert = _key(raw, layers, profile)
            out[name] = _file_value(SETTINGS[name], value, invert)
        except UsageError as exc:
            raise config_error(layers.path, f"{raw}: {_problem(exc, raw)}", profile) from exc
    return out, own


def _key(raw: str, layers: Layers, profile: str | None) -> tuple[str, bool]:
    """The setting `raw` names, and whether its boolean is inverted (`cache = false`)."""
    name = ALIASES.get(raw, raw)
    if name in SETTINGS:
        return name, False
    negated = SETTINGS.get(f"no_{name}")
    if negated is not None and negated.kind == "flag":
        return negated.name, True
    known = [*SETTINGS, *ALIASES, *COMMAND_KEYS]
    close = difflib.get_close_matches(raw, known, n=1, cutoff=0.6)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    raise config_error(layers.path, f"unknown key '{raw}'{hint}", profile)


def _file_value(entry: Setting, value: Any, invert: bool) -> Any:
    """A TOML value shaped as the flag would receive it, then checked like one."""
    if entry.kind == "flag" or invert:
        if not isinstance(value, bool):
            raise UsageError("expected true or false")
        return (not value) if invert else value
    if entry.kind == "rounds" and isinstance(value, bool):  # `deep = true` / `deep = false`
        return coerce(entry.name, value)
    if entry.kind == "list":
        items = value if isinstance(value, list) else [value]
        return _checked(entry, [_scalar(entry.name, item) for item in items])
    if isinstance(value, list):
        raise UsageError("expected one value, not a list")
    return _checked(entry, _scalar(entry.name, value))


def _scalar(name: str, value: Any) -> Any:
    if isinstance(value, bool | dict | list):
        raise UsageError("expected a single text or number value")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()  # TOML dates are native; the flag takes their ISO text
    if name in PATH_KEYS and isinstance(value, str):
        return os.path.expanduser(value)  # no shell expands `~` inside a config file
    return value


def _problem(exc: UsageError, name: str) -> str:
    """The coercion's message without the setting's name up front (the caller names it)."""
    message = str(exc)
    for prefix in (f"{name} ", f"{ALIASES.get(name, name)} ", f"no_{name} "):
        if message.startswith(prefix):
            return message[len(prefix) :]
    return message


# -- the environment -----------------------------------------------------------------------


def env_layer(env: Mapping[str, str], note: Note = _warn) -> dict[str, Any]:
    """Each setting's SLEUTH_* twin that is set (an empty variable is unset, as in click)."""
    env = renamed(env, note)
    out: dict[str, Any] = {}
    for entry in SETTINGS.values():
        raw = env.get(entry.env_name) if entry.env_name else None
        if raw is None or not raw.strip():
            continue
        text = raw.split() if entry.kind == "list" else raw  # `a b` or `a,b`, as click split it
        try:
            out[entry.name] = _checked(entry, text)
        except UsageError as exc:
            raise UsageError(f"{entry.env_name}: {_problem(exc, entry.name)}") from exc
    return out


def renamed(env: Mapping[str, str], note: Note = _warn) -> dict[str, str]:
    """`env` with each old variable's value under its new name (unless the new one is set),
    noting every old name in use once."""
    out = dict(env)
    for old, new in RENAMED_ENV.items():
        if not env.get(old, "").strip():
            continue
        if env.get(new, "").strip():
            note(f"{old} is now {new}; both are set and {new} wins: remove {old}")
        else:
            note(f"{old} is now {new}: rename it (read as {new} for now)")
            out[new] = env[old]
    for old, instead in RETIRED_ENV.items():
        if env.get(old, "").strip():
            note(f"{old} is no longer read: {instead}")
    return out


# -- explicit values -------------------------------------------------------------------------


def explicit_layer(values: Mapping[str, Any]) -> dict[str, Any]:
    """Values given in code or on the command line; None means not given, unknown names are
    refused."""
    out: dict[str, Any] = {}
    for name, value in values.items():
        if value is None:
            continue
        entry = SETTINGS.get(name)
        if entry is None:
            raise UsageError(f"unknown setting {name!r}", setting=name)
        out[name] = _checked(entry, value)
    return out


def _checked(entry: Setting, value: Any) -> Any:
    """`value` checked by the table's coercion, in the form every face hands on: a `since`
    stays as written (it is resolved against the day each run starts), lists are tuples of
    text, paths text."""
    coerced = coerce(entry.name, value)
    if entry.kind == "since":
        return value if isinstance(value, dt.date) else str(value).strip()
    return coerced
