"""Name registries for pluggable parts, filled by plugins.

Built-in search backends and writers are plugins like any other: each module in
`DEFAULT_PLUGINS` has a `register(registries)` function, and third-party packages expose the
same function under the `sleuth.plugins` entry-point group. Adding a backend is one new file and
one line here; nothing in Sleuth switches on a backend's name.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Generic, TypeVar

from .errors import UsageError

F = TypeVar("F")

DEFAULT_PLUGINS: tuple[str, ...] = (
    "sleuth.search.searxng",
    "sleuth.search.local",
    "sleuth.search.kb",
    "sleuth.search.none",
    "sleuth.search.duckduckgo",
    "sleuth.search.news",
    "sleuth.search.brave",
    "sleuth.search.tavily",
    "sleuth.search.exa",
    "sleuth.search.firecrawl",
    "sleuth.search.crw",
    "sleuth.search.bocha",
    "sleuth.search.openai_web",
    "sleuth.search.gemini_grounding",
    "sleuth.search.wikipedia",
    "sleuth.search.arxiv",
    "sleuth.search.github",
    "sleuth.search.hackernews",
    "sleuth.search.stackexchange",
    "sleuth.search.pubmed",
    "sleuth.search.semanticscholar",
    "sleuth.search.openalex",
    "sleuth.search.auto",
    "sleuth.search.multi",
)


@dataclass(frozen=True, slots=True)
class BackendSettings:
    """What a search backend factory may use to build itself.

    `env` holds SLEUTH_* settings (keys, URLs); `option` is the text after a colon in a spec
    like `multi:duckduckgo,wikipedia` or `stackexchange:superuser`.
    """

    env: Mapping[str, str] = field(default_factory=dict)
    option: str = ""
    include: tuple[str, ...] = ()
    timeout_s: float = 10.0
    since: date | None = None
    proxy: str | None = None  # from HTTPS_PROXY/HTTP_PROXY, for clients that do not read them
    pdf_max_pages: int = 50  # for included PDFs
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Entry(Generic[F]):
    name: str
    factory: F
    summary: str
    needs: str  # e.g. "SLEUTH_BRAVE_KEY" or "" for keyless
    offline: bool = False  # never touches the network: a run on it alone gets no web fallback


class Registry(Generic[F]):
    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, Entry[F]] = {}
        self._aliases: dict[str, str] = {}
        self.broken: dict[str, str] = {}  # plugin name -> why it could not register

    def register(
        self,
        name: str,
        factory: F,
        *,
        summary: str = "",
        needs: str = "",
        aliases: tuple[str, ...] = (),
        offline: bool = False,
    ) -> None:
        self._entries[name] = Entry(name, factory, summary, needs, offline)
        for alias in aliases:
            self._aliases[alias] = name

    def get(self, name: str) -> Entry[F]:
        key = self._aliases.get(name, name)
        if key not in self._entries:
            known = ", ".join(sorted(self._entries))
            broken = "".join(
                f"; plugin {p} failed to load: {why}" for p, why in self.broken.items()
            )
            raise UsageError(f"unknown {self.kind} {name!r} (known: {known}){broken}")
        return self._entries[key]

    def __iter__(self) -> Iterator[Entry[F]]:
        return iter(sorted(self._entries.values(), key=lambda e: e.name))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._aliases.get(name, name) in self._entries


# A search factory builds a ready backend from settings (and the registry, for composites).
SearchFactory = Callable[[BackendSettings, "Registries"], Any]


@dataclass(slots=True)
class Registries:
    search: Registry[SearchFactory] = field(default_factory=lambda: Registry("search backend"))


_loaded: Registries | None = None


def registries() -> Registries:
    """The process-wide registries, with built-in and installed plugins loaded once."""
    global _loaded
    if _loaded is None:
        regs = Registries()
        for module_name in DEFAULT_PLUGINS:
            importlib.import_module(module_name).register(regs)
        from importlib.metadata import entry_points

        for ep in entry_points(group="sleuth.plugins"):
            load_plugin(ep.name, ep.load, regs)
        _loaded = regs
    return _loaded


def load_plugin(name: str, load: Callable[[], Any], regs: Registries) -> None:
    """Register one third-party plugin. A plugin that fails to import or to register is left
    out and remembered (`doctor` lists it, an unknown backend name mentions it) instead of
    breaking every command: it is someone else's code, and most commands never need it."""
    try:
        register = load()
        register(regs)
    except Exception as exc:  # any failure inside foreign code: recorded, not raised
        regs.search.broken[name] = f"{type(exc).__name__}: {exc}"[:200]
