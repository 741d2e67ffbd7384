"""Turn settings (names, paths, flags) into ready parts. Only the application calls this.

This is the one place where `search="multi:a,b"`, `include`, the page cache and the LLM
configuration become adapter instances. `Resources` are built once per process and shared by
every run (the HTTP connection pool, the page cache, the browser, the model SDK clients); `Parts`
are built per run around them, so what a run changes (its cost meter, a benched backend, the
fallback chosen from `since`) stays its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine import Engine, Parts, Stages
from ..errors import UsageError
from ..extras import install_hint, installed
from ..fetch.browser import BrowserSettings, reading_fetcher
from ..fetch.cache import CachedFetcher, SqlitePageCache, default_cache_path
from ..fetch.extract import warm_up as warm_extraction
from ..fetch.http import FetchSettings, HttpFetcher
from ..llm.clients import ClientPool
from ..llm.factory import LLMSettings, build_chat_model, make_meter
from ..llm.meter import Meter
from ..pipeline.reader import reader as load_reader
from ..pipeline.write.extractive import ExtractiveWriter
from ..pipeline.write.llm import LLMWriter
from ..ports import ChatModel, Fetcher, PageCache, SearchBackend, Writer
from ..registry import BackendSettings, registries
from ..search.spec import build_search, parse_spec
from ..settings import Settings as Settings
from ..settings import database_url, folder
from ..settings import sleuth_home as sleuth_home
from ..think.clarify import ModelClarifier
from ..think.hops import HeuristicHopper, ModelHopper
from ..think.plan import ModelCritic, ModelPlanner
from ..think.structured import Structurer
from .budget import Budget, BudgetedFetcher, BudgetedSearch


def open_page_cache(where: Path, ttl_s: float, database_url: str | None = None) -> PageCache:
    """The page cache: SQLite in the folder `where` (cache_dir, else SLEUTH_HOME), or
    PostgreSQL when a database URL is given (psycopg is imported only then)."""
    if database_url is None:
        return SqlitePageCache(default_cache_path(where), ttl_s=ttl_s)
    from ..store.page_cache_pg import PgPageCache

    return PgPageCache(database_url, ttl_s=ttl_s)


class Resources:
    """What every run of a process shares; each piece is safe for concurrent runs.

    Fetchers are kept per distinct fetch/browser configuration (a run may ask for another PDF
    page limit), all over one connection pool per configuration; the page cache is one SQLite
    file; model SDK clients are pooled per endpoint."""

    def __init__(self, home: Path, database_url: str | None = None) -> None:
        self.home = home
        self.database_url = database_url
        self.models = ClientPool()
        self._readers: dict[tuple[FetchSettings, BrowserSettings], Fetcher] = {}
        self._images: dict[FetchSettings, HttpFetcher] = {}
        self._cache: PageCache | None = None
        self._cache_key: tuple[float, Path] | None = None
        self._warming: asyncio.Future[None] | None = None

    def warm_up(self) -> None:
        """Load the extraction stack and the reader's model in a worker thread while the first
        search is on the network, so neither the first page read nor the first answer waits
        for them (~0.15 s and ~0.35 s here)."""
        if self._warming is None:
            self._warming = asyncio.get_running_loop().run_in_executor(None, _warm)

    def reader(self, fetch: FetchSettings, browser: BrowserSettings) -> Fetcher:
        key = (fetch, browser)
        if key not in self._readers:
            self._readers[key] = reading_fetcher(HttpFetcher(fetch), browser)
        return self._readers[key]

    def images(self, fetch: FetchSettings) -> HttpFetcher:
        """The shared downloader of report images: the page fetcher's guard and limits."""
        if fetch not in self._images:
            self._images[fetch] = HttpFetcher(fetch)
        return self._images[fetch]

    def page_cache(self, ttl_s: float, folder: Path | None = None) -> PageCache:
        """The shared page cache, reopened when a run asks for another TTL or folder."""
        folder = self.home if folder is None else folder
        key = (ttl_s, folder)
        if self._cache is None or self._cache_key != key:
            self._cache = open_page_cache(folder, ttl_s, self.database_url)
            self._cache_key = key
        return self._cache

    async def aclose(self) -> None:
        if self._warming is not None:
            await self._warming  # a thread cannot be cancelled; it ends within a second
        readers, self._readers = list(self._readers.values()), {}
        images, self._images = list(self._images.values()), {}
        for reader in [*readers, *images]:
            await reader.aclose()
        await self.models.aclose()


class Borrowed:
    """A shared fetcher lent to one run: the run's `aclose` leaves it open for the next."""

    def __init__(self, inner: Fetcher) -> None:
        self._inner = inner

    async def fetch(self, url: str) -> Any:
        return await self._inner.fetch(url)

    async def aclose(self) -> None:
        return None


@dataclass(slots=True)
class Assembled:
    """Parts for one run, plus what the run must close when it ends (never shared parts)."""

    parts: Parts
    owned: list[Any] = field(default_factory=list)

    @property
    def engine(self) -> Engine:
        return Engine.of(self.parts)

    @property
    def meter(self) -> Meter:
        assert self.parts.meter is not None
        return self.parts.meter

    @property
    def fetcher(self) -> Fetcher:
        return self.parts.fetcher

    async def aclose(self) -> None:
        for thing in self.owned:
            close = getattr(thing, "aclose", None)
            if close is not None:
                await close()


def llm_settings(settings: Settings) -> LLMSettings:
    return LLMSettings.from_env(
        settings.env,
        base_url=settings.base_url,
        api_keys=settings.api_key,
        model=settings.model,
        api_format=settings.api_format,
        azure_api_version=settings.azure_api_version,
        azure_ad_token=settings.azure_ad_token,
        max_cost=settings.max_cost,
        plan_model=settings.plan_model,
        critic_model=settings.critic_model,
    )


@dataclass(frozen=True, slots=True)
class Models:
    """One chat model per stage, or none at all when no LLM is configured."""

    synth: ChatModel
    plan: ChatModel
    critic: ChatModel

    def all(self) -> tuple[ChatModel, ...]:
        return (self.synth, self.plan, self.critic)


def build_models(settings: Settings, meter: Meter, clients: ClientPool | None) -> Models | None:
    config = llm_settings(settings)
    synth = build_chat_model(config, meter, stage="synth", clients=clients)
    plan = build_chat_model(config, meter, stage="plan", clients=clients)
    critic = build_chat_model(config, meter, stage="critic", clients=clients)
    if synth is None or plan is None or critic is None:
        return None
    return Models(synth, plan, critic)


def build_stages(settings: Settings, models: Models | None) -> Stages:
    """Model-backed planning, critique, triage and structured output when an LLM is configured;
    deterministic heuristics otherwise (no structured output without a model)."""
    if models is None:
        return Stages(hopper=HeuristicHopper() if settings.heuristic_hops else None)
    mine = settings.prompt_overrides
    return Stages(
        planner=ModelPlanner(models.plan, mine.plan, mine.queries),
        critic=ModelCritic(models.critic, mine.critic),
        clarifier=ModelClarifier(models.plan, mine.clarify),
        hopper=ModelHopper(models.plan),
        structurer=Structurer(models.synth, settings.context_tokens),
    )


def build_writer(settings: Settings, models: Models | None) -> Writer:
    if models is None:
        return ExtractiveWriter()
    return LLMWriter(
        models.synth,
        context_tokens=settings.context_tokens,
        guidance=settings.guidance,
        overrides=settings.prompt_overrides,
    )


def fetch_settings(settings: Settings) -> FetchSettings:
    if settings.max_bytes < 1000:
        raise UsageError("the page size cap must be at least 1000 bytes", setting="max_bytes")
    return FetchSettings(
        timeout_s=settings.fetch_timeout_s,
        max_bytes=settings.max_bytes,
        pdf_max_pages=settings.pdf_max_pages,
        allow_private=settings.allow_private_network,
    )


def _warm() -> None:
    warm_extraction()
    load_reader()


def build_fetcher(
    settings: Settings, resources: Resources | None = None, budget: Budget | None = None
) -> Fetcher:
    """The run's fetcher: shared readers from `resources` (or private ones), metered by the
    run's quota `budget` when it has one, page cache on top."""
    browser = browser_settings(settings)
    if resources is None:
        fetcher: Fetcher = reading_fetcher(HttpFetcher(fetch_settings(settings)), browser)
    else:
        fetcher = Borrowed(resources.reader(fetch_settings(settings), browser))
    if budget is not None:
        fetcher = BudgetedFetcher(fetcher, budget)
    if settings.no_cache:
        return fetcher
    where = folder(settings.cache_dir, sleuth_home(settings.env))
    if resources is None:
        cache: PageCache = open_page_cache(where, settings.cache_ttl, database_url(settings.env))
    else:
        cache = resources.page_cache(settings.cache_ttl, where)
    return CachedFetcher(fetcher, cache, refresh=settings.refresh_cache)


def browser_settings(settings: Settings) -> BrowserSettings:
    if settings.browser not in ("auto", "always", "never"):
        raise UsageError(
            f"browser must be auto, always or never, not {settings.browser!r}", setting="browser"
        )
    if settings.browser == "always" and not installed("browser"):
        # Every page would be skipped and the run would answer from snippets: refuse up front.
        raise UsageError(
            "browser=always reads every page in Chromium, but playwright is not installed: "
            f"{install_hint('browser')}",
            setting="browser",
        )
    env = settings.env
    return BrowserSettings(
        executable=settings.browser_executable,
        cdp_endpoint=settings.browser_cdp_endpoint,
        mode=settings.browser,
        allow_private=settings.allow_private_network,
        proxy=env.get("HTTP_PROXY") or env.get("http_proxy") or None,
    )


def fallback_spec(settings: Settings) -> str:
    """search_fallback, defaulting to wikipedia (news first when `since` asks for fresh)."""
    spec = settings.search_fallback
    if spec is None:
        spec = "news,wikipedia" if settings.since_set else "wikipedia"
    spec = spec.strip()
    return f"multi:{spec}" if "," in spec and not spec.startswith("multi:") else spec


# The model providers' own keys, for the backends that search through a model (openai, gemini).
VENDOR_KEYS = ("OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")


def backend_settings(settings: Settings) -> BackendSettings:
    env = {k: v for k, v in settings.env.items() if k.startswith("SLEUTH_") or k in VENDOR_KEYS}
    extra = {
        "kb": settings.kb,
        "kb_hybrid": settings.kb_hybrid,
        "kb_owner": settings.kb_owner,
        "include_alone": parse_spec(settings.search)[0] == "none",  # the files are all it reads
    }
    return BackendSettings(
        env=env,
        include=settings.include,
        proxy=proxy_from(settings.env),
        pdf_max_pages=settings.pdf_max_pages,
        extra=extra,
    )


def proxy_from(env: Mapping[str, str]) -> str | None:
    """The proxy the standard variables name for https (then any) traffic."""
    for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "HTTP_PROXY"):
        if env.get(name, "").strip():
            return env[name].strip()
    return env.get("http_proxy", "").strip() or None


def build_search_backends(
    settings: Settings,
) -> tuple[SearchBackend, SearchBackend | None, SearchBackend | None]:
    """(primary, fallback, include) backends for a run."""
    bs = backend_settings(settings)
    primary = build_search(settings.search, bs)
    spec = fallback_spec(settings)
    fallback = None
    if spec and spec != "none" and settings.search != spec and not _offline(settings.search):
        fallback = build_search(spec, bs)
    include = build_search("local", bs) if settings.include else None
    return primary, fallback, include


def _offline(spec: str) -> bool:
    """A run on an offline backend alone (none, local, kb) must not fall back to the web."""
    name, _ = parse_spec(spec)
    return name in registries().search and registries().search.get(name).offline


def build_parts(
    settings: Settings, resources: Resources | None = None, budget: Budget | None = None
) -> Assembled:
    """Everything one run uses. With `resources`, shared clients are borrowed, not owned; with
    a `budget`, web searches and page reads stop at the organization's allowance."""
    meter = make_meter(llm_settings(settings))
    primary, fallback, include = build_search_backends(settings)
    if budget is not None:
        primary = BudgetedSearch(primary, budget)
        fallback = BudgetedSearch(fallback, budget) if fallback is not None else None
    models = build_models(settings, meter, resources.models if resources else None)
    fetcher = build_fetcher(settings, resources, budget)
    writer = build_writer(settings, models)
    images = resources.images(fetch_settings(settings)) if resources else None
    owned: list[Any] = [fetcher, primary, fallback, include]
    if images is None:
        images = HttpFetcher(fetch_settings(settings))
        owned.append(images)
    stages = build_stages(settings, models)
    parts = Parts(primary, fetcher, writer, include, fallback, meter, stages, images)
    if resources is None and models is not None:
        owned.extend(models.all())
    return Assembled(parts, [o for o in owned if o is not None])


def assemble(settings: Settings) -> Assembled:
    """Parts for one run that own every client they use (a script or a test)."""
    return build_parts(settings)
