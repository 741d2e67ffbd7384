"""Click options made from the settings table, so a flag, its env twin, its type, default and
help are declared once (`sleuth.settings.table`). Values go through the same coercion as config
files and API fields (`sleuth.settings.values.coerce`), so every face refuses the same values.

Options a single command owns (eval's `--limit`, export's `--format`) are declared in that
command with `option(...)` and have no env twin: a variable must mean one thing everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from ..errors import UsageError
from ..limits import DEEP_ROUNDS
from ..settings.table import SETTINGS, Setting
from ..settings.values import coerce
from .render import echo

F = TypeVar("F", bound=Callable[..., Any])

# Groups of settings, in the order --help lists them.
OUTPUT = ("json", "out", "verbose")
SEARCH = ("search", "search_fallback", "search_lang", "include", "kb", "kb_hybrid")
READING = (
    "no_cache",
    "cache_ttl",
    "cache_dir",
    "browser",
    "browser_executable",
    "browser_cdp_endpoint",
    "pdf_max_pages",
    "since",
    "source_authority",
    "dedupe_threshold",
    "no_dedupe",
)
LLM = ("base_url", "api_key", "model", "api_format", "azure_api_version")
MODELS = ("plan_model", "critic_model", "context_tokens", "max_cost", "no_cost", "require_llm")
DEPTH = ("deep", "output", "schema", "tldr", "images", "language")
SESSION = ("no_sessions", "tag", "sessions_dir")
CHECKS = (
    "max_sources",
    "concurrency",
    "max_runtime",
    "cite_min_recall",
    "strict_cites",
    "require_answer",
    "no_verify_cites",
    "allow_domain",
    "deny_domain",
)


def note(message: str) -> None:
    echo(f"sleuth: {message}", err=True)


class TableType(click.ParamType):  # type: ignore[type-arg]
    """A setting's value checked by the table's coercion; errors name the flag."""

    def __init__(self, entry: Setting) -> None:
        self.entry = entry
        self.name = entry.kind

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            coerced = coerce(self.entry.name, value, note)
        except UsageError as exc:
            message = str(exc)
            prefix = f"{self.entry.name} "
            self.fail(message[len(prefix) :] if message.startswith(prefix) else message, param, ctx)
        # A `since` stays text (`30d`): it is resolved against the day the run starts.
        return value if self.entry.kind == "since" else coerced


class CommaList(click.ParamType):  # type: ignore[type-arg]
    """`a,b` or repeated flags, flattened to a tuple of non-empty items."""

    name = "list"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, tuple | list):
            return tuple(value)
        return tuple(p.strip() for p in str(value).split(",") if p.strip())


def _click_type(entry: Setting) -> Any:
    if entry.kind == "choice":
        return click.Choice(entry.choices)
    if entry.kind == "path" and entry.metavar == "DIR":  # a folder: Sleuth says what is wrong
        return click.Path(path_type=Path)
    if entry.kind == "path":
        return click.Path(dir_okay=False, path_type=Path)
    if entry.kind == "list":
        return CommaList()
    if entry.kind in ("int", "float", "duration", "since", "rounds", "lang", "money"):
        return TableType(entry)
    return None


class TableOption(click.Option):
    """An option that is a setting of the table; `setting` names it (the loader's key)."""

    def __init__(self, *args: Any, setting: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.setting = setting


def table_option(name: str, dest: str | None = None, **overrides: Any) -> Callable[[F], F]:
    """The click option for setting `name`, with its env twin unless the table says none."""
    entry = SETTINGS[name]
    if not entry.cli:
        raise ValueError(f"{name} has no flag (the table says cli=False)")
    decls = [entry.flag, *([entry.short] if entry.short else []), dest or name]
    kwargs: dict[str, Any] = {
        "cls": TableOption,
        "setting": name,
        "help": entry.help,
        "metavar": entry.metavar,
        "envvar": entry.env_name,
        "show_envvar": entry.env,
    }
    if entry.kind == "flag":
        kwargs["is_flag"] = True
    else:
        kwargs["type"] = _click_type(entry)
        kwargs["default"] = _click_default(entry)
        kwargs["show_default"] = entry.default not in (None, ())
    if entry.kind == "list":
        kwargs["multiple"] = True
    if entry.kind == "rounds":
        kwargs.update(is_flag=False, flag_value=DEEP_ROUNDS)
    if name == "search":
        from .complete import backends

        kwargs["shell_complete"] = backends
    kwargs.update(overrides)
    return click.option(*decls, **kwargs)


def _click_default(entry: Setting) -> Any:
    return () if entry.kind == "list" else entry.default


def table_options(*names: str) -> Callable[[F], F]:
    """Options for several settings, listed by --help in the order given."""

    def decorate(f: F) -> F:
        for name in reversed(names):
            f = table_option(name)(f)
        return f

    return decorate


def option(*decls: str, **kwargs: Any) -> Callable[[F], F]:
    """An option only one command has; it has no environment twin."""
    return click.option(*decls, **kwargs)


def flatten(values: tuple[tuple[str, ...], ...] | tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for item in values:
        out.extend(item if isinstance(item, tuple) else [item])
    return tuple(out)


def env(name: str) -> str:
    return f"SLEUTH_{name.upper().replace('-', '_')}"
