"""Prompts are data: markdown files loaded by name and filled with str.format fields."""

from __future__ import annotations

from functools import cache
from importlib.resources import files


@cache
def load(name: str) -> str:
    return (files(__package__) / f"{name}.md").read_text(encoding="utf-8")


def instructions(name: str, override: str = "") -> str:
    """A stage's instructions: a requester's own text in their place, else Sleuth's
    (`prompts/<name>.md`). The stage's frame around them (the reply format, the source framing,
    the citation rules) is never replaced."""
    return override.strip() or load(name).strip()
