"""Everything a run can be configured with, whatever interface it came from.

    table.py   the one settings table: name, kind, default, env twin, help of every setting
    values.py  values written as text (spans, since dates, freshness) and coercion by kind
    files.py   config.toml and profiles
    resolve.py the one loader every face uses: defaults < file < profile < env < explicit
    (here)     `Settings`, what the application assembles a run's adapters from; `sleuth_home`,
               `folder` (cache_dir, sessions_dir), `database_url` (SLEUTH_DATABASE_URL, parsed
               here and nowhere else)

Kept apart from the engine so the command line can build settings without importing the
extraction stack (which `--help` and shell completion should not pay for).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..types import ApiFormat, BrowserMode, Guidance, PromptOverrides


def sleuth_home(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    return Path(env.get("SLEUTH_HOME") or "~/.sleuth").expanduser()


def folder(named: str | None, home: Path) -> Path:
    """A folder setting (`cache_dir`, `sessions_dir`): the one named, else SLEUTH_HOME."""
    return Path(named).expanduser() if named else home


DATABASE_SCHEMES = ("postgresql://", "postgres://")


def database_url(env: Mapping[str, str] | None = None) -> str | None:
    """SLEUTH_DATABASE_URL: the PostgreSQL database that holds what SLEUTH_HOME's files would
    (sessions, the service's keys, quotas and caches, the page cache, knowledge bases, the web
    UI's saved settings), or None."""
    from ..errors import UsageError

    env = os.environ if env is None else env
    url = (env.get("SLEUTH_DATABASE_URL") or "").strip()
    if not url:
        return None
    if not url.startswith(DATABASE_SCHEMES):
        raise UsageError(
            "SLEUTH_DATABASE_URL must be a postgresql://user[:password]@host[:port]/database "
            f"URL, not one starting {url.split(':', 1)[0][:20]!r}"
        )
    return url


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything a run can be configured with, whatever interface it came from."""

    search: str = "duckduckgo"
    search_fallback: str | None = None  # None: wikipedia, or news,wikipedia when since is set
    since_set: bool = False
    include: tuple[str, ...] = ()
    kb: str = "default"  # the knowledge base `--search=kb` uses
    kb_hybrid: bool = False  # BM25 only: hybrid's gain on the bench was within noise
    kb_owner: str = "local"  # whose knowledge bases `kb` searches (the service: the org)
    base_url: str | None = None
    api_key: str | None = None
    model: str | None = None
    api_format: ApiFormat = "auto"
    azure_api_version: str | None = None
    azure_ad_token: str | None = None
    context_tokens: int = 16000
    max_cost: float | None = None
    plan_model: str | None = None
    critic_model: str | None = None
    heuristic_hops: bool = False  # two-step triage without an LLM (see CHANGELOG for why off)
    no_cache: bool = False
    refresh_cache: bool = False  # read every page afresh but still store it (rerun)
    cache_ttl: float = 3600.0  # seconds a read page is served from the page cache
    cache_dir: str | None = None  # the page cache's folder; None: SLEUTH_HOME
    sessions_dir: str | None = None  # the session store's folder; None: SLEUTH_HOME
    config: str | None = None  # the config file these came from, when one was named
    fetch_timeout_s: float = 10.0
    max_bytes: int = 5_000_000
    pdf_max_pages: int = 50
    allow_private_network: bool = False
    browser: BrowserMode = "auto"
    browser_executable: str | None = None
    browser_cdp_endpoint: str | None = None
    guidance: Guidance = field(default_factory=Guidance)  # a requester's added context
    # A requester's own instructions in place of Sleuth's, per stage (the SSE dialect's).
    prompt_overrides: PromptOverrides = field(default_factory=PromptOverrides)
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    # Run and session setting values (by table name) every run gets unless it gives its own:
    # what the config file, profile and environment set (`resolve`); empty for `Settings()`.
    run_defaults: Mapping[str, Any] = field(default_factory=dict)

    def with_(self, **changes: Any) -> Settings:
        return replace(self, **changes)

    @classmethod
    def from_env(
        cls, env: Mapping[str, str] | None = None, profile: str | None = None, **explicit: Any
    ) -> Settings:
        """The settings every face resolves from `env` (default: this process's): built-in
        defaults < config file < profile < SLEUTH_* variables < `explicit` (see `resolve`)."""
        from .resolve import resolve

        return resolve(env, profile, explicit).settings()
