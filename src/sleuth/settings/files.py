"""The config file `$SLEUTH_HOME/config.toml` and named profiles.

Precedence, lowest first: built-in defaults < config file < profile < env < flags. This module
only reads the file, normalizes its keys (`max-sources` and `max_sources` are the same key) and
picks the profile; what each key means, and whether its value is valid, is decided by the
loader (`sleuth.settings.resolve`) with the table's coercion, so the file is checked exactly
like a flag, a variable or an API field.

    search = "multi:duckduckgo,wikipedia"
    max_sources = 8
    tags = ["client-x"]
    profile = "fast"                 # the profile used when neither --profile nor SLEUTH_PROFILE

    [profiles.work]
    model = "gpt-4o-mini"
    source_authority = "strict"
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..disk.read import LocalFileError, read_regular
from ..errors import ConfigError
from ..limits import DEEP_ROUNDS

FILE_NAME = "config.toml"
MAX_CONFIG_BYTES = 1_000_000  # a config file is a few hundred bytes; /dev/zero is endless

# Built-in profiles; a user profile with the same name replaces one of these whole, so a
# user's `[profiles.fast]` never inherits a key they did not write.
BUILTIN_PROFILES: Mapping[str, Mapping[str, Any]] = MappingProxyType(
    {
        "deep": {"deep": DEEP_ROUNDS, "output": "report"},
        "thorough": {"deep": 3, "max_sources": 15, "source_authority": "strict"},
        "fast": {"max_sources": 4, "browser": "never", "search_fallback": "none"},
        "cheap": {"max_cost": 0.05, "deep": False},
        "strict": {"strict_cites": True, "source_authority": "strict", "cite_min_recall": 0.5},
    }
)


@dataclass(frozen=True, slots=True)
class ConfigFile:
    """The config file as read: top-level settings and user profiles, keys normalized."""

    path: Path
    exists: bool = False
    settings: Mapping[str, Any] = field(default_factory=dict)
    profiles: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    default_profile: str | None = None

    def all_profiles(self) -> dict[str, Mapping[str, Any]]:
        return {**BUILTIN_PROFILES, **self.profiles}


@dataclass(frozen=True, slots=True)
class Layers:
    """The two layers a config file contributes below env and flags."""

    path: Path
    file: Mapping[str, Any]
    profile: Mapping[str, Any]
    profile_name: str | None = None
    profile_builtin: bool = False


def config_path(env: Mapping[str, str] | None = None, named: str | None = None) -> Path:
    """The config file: the one `named` (the `config` setting), else SLEUTH_CONFIG's, else
    $SLEUTH_HOME/config.toml."""
    import os

    from . import sleuth_home

    env = os.environ if env is None else env
    chosen = named or (env.get("SLEUTH_CONFIG") or "").strip()
    return Path(chosen).expanduser() if chosen else sleuth_home(env) / FILE_NAME


def config_named(env: Mapping[str, str] | None = None, named: str | None = None) -> str | None:
    """Who named the config file (`config`: a flag or an argument; SLEUTH_CONFIG), or None
    for the default one. A named file must exist, where the default one may be absent."""
    import os

    env = os.environ if env is None else env
    if named:
        return "config"
    return "SLEUTH_CONFIG" if (env.get("SLEUTH_CONFIG") or "").strip() else None


def normalize_key(key: str) -> str:
    return key.strip().replace("-", "_").lower()


def config_error(path: Path, problem: str, profile: str | None = None) -> ConfigError:
    where = f" [profiles.{profile}]" if profile else ""
    return ConfigError(f"config error in {path}{where}: {problem}")


def read_config(path: Path | None = None, *, named_by: str | None = None) -> ConfigFile:
    """Read and shape-check the file; a missing file is an empty config, not an error, unless
    it was named (`named_by`: the setting or variable; a typo must not silently drop every
    setting the user meant to load)."""
    path = config_path() if path is None else path
    try:
        raw = read_regular(path, MAX_CONFIG_BYTES, "config file")
    except LocalFileError as exc:
        if exc.missing and named_by is None:
            return ConfigFile(path)
        if exc.missing:
            setting = "config" if named_by == "config" else None
            raise ConfigError(f"{named_by}: no config file at {path}", setting=setting) from exc
        raise config_error(path, f"it {exc.problem}") from exc
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise config_error(path, "it is not UTF-8 text") from exc
    except tomllib.TOMLDecodeError as exc:
        raise config_error(path, f"invalid TOML: {exc}") from exc
    except RecursionError as exc:
        raise config_error(path, "it is nested too deeply") from exc
    return _shape(path, data)


def _shape(path: Path, data: dict[str, Any]) -> ConfigFile:
    settings = _normalized(path, data, None)
    profiles = settings.pop("profiles", {})
    if not isinstance(profiles, dict) or not all(isinstance(v, dict) for v in profiles.values()):
        raise config_error(path, "'profiles' must hold tables like [profiles.NAME]")
    default_profile = settings.pop("profile", None)
    if default_profile is not None and not isinstance(default_profile, str):
        raise config_error(path, "'profile' must be a profile name (a string)")
    shaped = {name: _normalized(path, table, name) for name, table in profiles.items()}
    return ConfigFile(path, True, settings, shaped, default_profile)


def _normalized(path: Path, table: Mapping[str, Any], profile: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for raw, value in table.items():
        key = normalize_key(raw)
        if key in out:
            raise config_error(path, f"key '{key}' is given twice", profile)
        if profile is not None and key in ("profile", "profiles"):
            raise config_error(path, f"'{key}' cannot be set inside a profile", profile)
        if key == "config":  # the file is chosen before it is read
            raise config_error(
                path, "'config' cannot be set in a config file (use --config or SLEUTH_CONFIG)"
            )
        out[key] = value
    return out


def select_profile(config: ConfigFile, name: str | None) -> Layers:
    """The file layer plus the named profile (or the file's `profile` key, or none)."""
    name = name or config.default_profile
    if not name:
        return Layers(config.path, config.settings, {})
    profiles = config.all_profiles()
    if name not in profiles:
        known = ", ".join(sorted(profiles))
        raise ConfigError(
            f"unknown profile '{name}' (known: {known}; "
            f"define it as [profiles.{name}] in {config.path})"
        )
    builtin = name in BUILTIN_PROFILES and name not in config.profiles
    return Layers(config.path, config.settings, profiles[name], name, builtin)
