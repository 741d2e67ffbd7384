"""Shared click options. Every flag has a SLEUTH_* environment twin (flags win over env)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])
DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$")


def env(name: str) -> str:
    return f"SLEUTH_{name.upper().replace('-', '_')}"


def option(*decls: str, **kwargs: Any) -> Callable[[F], F]:
    """A click option whose env twin is SLEUTH_<LONG_NAME>, shown in --help."""
    long = next(d for d in decls if d.startswith("--")).split("/")[0][2:]
    kwargs.setdefault("envvar", env(long))
    kwargs.setdefault("show_envvar", True)
    return click.option(*decls, **kwargs)


class Duration(click.ParamType):  # type: ignore[type-arg]
    """Seconds from `90`, `90s`, `500ms`, `10m` or `1h`."""

    name = "duration"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        if isinstance(value, int | float):
            return float(value)
        match = DURATION.match(str(value))
        if not match:
            self.fail(f"{value!r} is not a duration (use e.g. 90s, 10m, 1h)", param, ctx)
        number, unit = float(match.group(1)), match.group(2) or "s"
        seconds = number * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[unit]
        if seconds <= 0:
            self.fail("the duration must be positive", param, ctx)
        return seconds


class CommaList(click.ParamType):  # type: ignore[type-arg]
    """`a,b` or repeated flags, flattened to a tuple of non-empty items."""

    name = "list"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, tuple | list):
            return tuple(value)
        return tuple(p.strip() for p in str(value).split(",") if p.strip())


def flatten(values: tuple[tuple[str, ...], ...] | tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for item in values:
        out.extend(item if isinstance(item, tuple) else [item])
    return tuple(out)


def search_options(f: F) -> F:
    f = option(
        "--include",
        type=CommaList(),
        multiple=True,
        metavar="PATH[,PATH]",
        help="Local files or directories (.md .txt .html .pdf) to use as sources.",
    )(f)
    f = option(
        "--search-fallback",
        default=None,
        metavar="SPEC",
        help="Backend to retry a round through when search finds nothing: wikipedia, or "
        "news,wikipedia with --since; 'none' disables.",
    )(f)
    f = option(
        "--search",
        default="duckduckgo",
        show_default=True,
        metavar="SPEC",
        help="Search backend: a name, or multi:a,b,c.",
    )(f)
    return f


def llm_options(f: F) -> F:
    f = option(
        "--api-format",
        type=click.Choice(["auto", "openai", "anthropic"]),
        default="auto",
        show_default=True,
        help="LLM wire format.",
    )(f)
    f = option("--model", default=None, help="Model that writes the answer.")(f)
    f = option("--api-key", default=None, help="LLM API key (several: key1,key2).")(f)
    f = option(
        "--base-url",
        default=None,
        help="OpenAI-compatible or Anthropic endpoint (Ollama, vLLM, llama.cpp, ...).",
    )(f)
    return f


def output_options(f: F) -> F:
    f = option("--verbose", "-v", is_flag=True, help="Print every run event on stderr.")(f)
    f = option(
        "--out",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="Also write the final output to this file.",
    )(f)
    f = option(
        "--json",
        "as_json",
        is_flag=True,
        envvar="SLEUTH_JSON",
        help="Print the result as JSON (the DESIGN §1 shape).",
    )(f)
    return f


def reading_options(f: F) -> F:
    f = option("--no-dedupe", is_flag=True, help="Keep near-duplicate pages.")(f)
    f = option(
        "--dedupe-threshold",
        type=click.FloatRange(0.01, 1.0),
        default=0.9,
        show_default=True,
        help="Word 5-gram Jaccard similarity at which a page counts as a copy of one already kept.",
    )(f)
    f = option(
        "--source-authority",
        type=click.Choice(["prefer", "strict", "off"]),
        default="prefer",
        show_default=True,
        help="Order fetch slots by domain authority; strict also drops content farms.",
    )(f)
    f = option(
        "--since",
        default=None,
        metavar="DATE|DURATION",
        help="Drop pages published before this (2024-01-31, or 30d, 2w, 6m, 1y); "
        "undated pages are kept.",
    )(f)
    f = option(
        "--pdf-max-pages",
        type=click.IntRange(1, 2000),
        default=50,
        show_default=True,
        help="Pages of a PDF to read.",
    )(f)
    f = option(
        "--browser-cdp-endpoint",
        default=None,
        metavar="URL",
        help="Use a running Chromium over CDP instead of launching one.",
    )(f)
    f = option(
        "--browser-executable",
        default=None,
        metavar="PATH",
        help="Chromium to launch (default: chromium on PATH).",
    )(f)
    f = option(
        "--browser",
        type=click.Choice(["auto", "always", "never"]),
        default="auto",
        show_default=True,
        help="Read pages in headless Chromium: when plain HTTP yields too little text "
        "(auto), always, or never. Needs sleuth[browser].",
    )(f)
    f = option("--no-cache", is_flag=True, help="Do not read or write the page cache.")(f)
    return f


def session_options(f: F) -> F:
    f = option(
        "--tag",
        type=CommaList(),
        multiple=True,
        envvar="SLEUTH_TAGS",
        metavar="TAG[,TAG]",
        help="Label the saved session.",
    )(f)
    f = option("--no-sessions", is_flag=True, help="Do not save this run as a session.")(f)
    return f


def depth_options(f: F) -> F:
    f = option(
        "--language",
        default=None,
        metavar="LANG",
        help="Write the answer in this language (needs an LLM).",
    )(f)
    f = option("--tldr", is_flag=True, help="Start with a cited one-paragraph summary.")(f)
    f = option(
        "--schema",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        metavar="FILE",
        help="Fill this JSON Schema from the sources (needs an LLM); "
        "the result has `data` instead of `answer`.",
    )(f)
    f = option(
        "--output",
        "output_kind",
        type=click.Choice(["answer", "report"]),
        default=None,
        help="An answer (quick default) or a sectioned report (deep default).",
    )(f)
    f = option(
        "--deep",
        type=click.IntRange(0, 10),
        is_flag=False,
        flag_value=2,
        default=None,
        metavar="[=N]",
        help="Deep research: plan sub-queries, then up to N critic rounds (bare --deep: 2).",
    )(f)
    return f


def cost_options(f: F) -> F:
    f = option("--no-cost", is_flag=True, help="Do not print the cost summary.")(f)
    f = option(
        "--max-cost",
        type=click.FloatRange(0.0),
        default=None,
        metavar="USD",
        help="Stop before the next model call once this much is spent; exit 2.",
    )(f)
    f = option(
        "--context-tokens",
        type=click.IntRange(2000),
        default=16000,
        show_default=True,
        help="The model's context size; passages are trimmed by rank to fit.",
    )(f)
    f = option("--critic-model", default=None, help="Model for the deep critic.")(f)
    f = option("--plan-model", default=None, help="Model for planning and triage.")(f)
    return f
