"""Prompts are data: markdown files loaded by name and filled with str.format fields."""

from __future__ import annotations

from functools import cache
from importlib.resources import files


@cache
def load(name: str) -> str:
    return (files(__package__) / f"{name}.md").read_text(encoding="utf-8")
