"""Turn a user's backend spec (`searxng`, `multi:duckduckgo,wikipedia`,
`stackexchange:superuser`) into a ready `SearchBackend`. Only the edges call this."""

from __future__ import annotations

from dataclasses import replace

from ..errors import UsageError
from ..ports import SearchBackend
from ..registry import BackendSettings, Registries, registries


def parse_spec(spec: str) -> tuple[str, str]:
    """`name[:option]` → (name, option); the option is everything after the first colon."""
    name, _, option = spec.strip().partition(":")
    if not name.strip():
        raise UsageError(f"empty search backend spec {spec!r}")
    return name.strip().lower(), option.strip()


def build_search(
    spec: str, settings: BackendSettings, regs: Registries | None = None
) -> SearchBackend:
    regs = regs or registries()
    name, option = parse_spec(spec)
    entry = regs.search.get(name)
    backend: SearchBackend = entry.factory(replace(settings, option=option), regs)
    return backend
