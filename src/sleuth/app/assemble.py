"""Turn settings (names, paths, flags) into a ready Engine. Only the edges call this.

This is the one place where `--search=multi:a,b`, `--include`, the page cache and the LLM
configuration become adapter instances; the engine itself only sees interfaces.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..engine.engine import Engine, Stages
from ..errors import UsageError
from ..fetch.browser import BrowserSettings, reading_fetcher
from ..fetch.cache import CachedFetcher, SqlitePageCache
from ..fetch.http import FetchSettings, HttpFetcher
from ..llm.factory import LLMSettings, build_chat_model, make_meter
from ..llm.meter import Meter
from ..pipeline.write.extractive import ExtractiveWriter
from ..pipeline.write.llm import LLMWriter
from ..ports import ChatModel, Fetcher, SearchBackend, Writer
from ..registry import BackendSettings, registries
from ..search.spec import build_search, parse_spec
from ..settings import Settings as Settings
from ..settings import sleuth_home as sleuth_home
from ..think.hops import HeuristicHopper, ModelHopper
from ..think.plan import ModelCritic, ModelPlanner
from ..think.structured import Structurer
from ..types import ResearchRequest


@dataclass(slots=True)
class Assembled:
    engine: Engine
    meter: Meter
    fetcher: Fetcher
    models: tuple[ChatModel, ...] = ()

    async def aclose(self) -> None:
        """Close the fetcher and every model client (their pooled connections stay open)."""
        await self.fetcher.aclose()
        for model in self.models:
            close = getattr(model, "aclose", None)
            if close is not None:
                await close()


def llm_settings(settings: Settings) -> LLMSettings:
    return LLMSettings.from_env(
        settings.env,
        base_url=settings.base_url,
        api_keys=settings.api_key,
        model=settings.model,
        api_format=settings.api_format,
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


def build_models(settings: Settings, meter: Meter) -> Models | None:
    config = llm_settings(settings)
    synth = build_chat_model(config, meter, stage="synth")
    plan = build_chat_model(config, meter, stage="plan")
    critic = build_chat_model(config, meter, stage="critic")
    if synth is None or plan is None or critic is None:
        return None
    return Models(synth, plan, critic)


def build_stages(settings: Settings, models: Models | None) -> Stages:
    """Model-backed planning, critique, triage and structured output when an LLM is configured;
    deterministic heuristics otherwise (no structured output without a model)."""
    if models is None:
        return Stages(hopper=HeuristicHopper() if settings.heuristic_hops else None)
    return Stages(
        planner=ModelPlanner(models.plan),
        critic=ModelCritic(models.critic),
        hopper=ModelHopper(models.plan),
        structurer=Structurer(models.synth, settings.context_tokens),
    )


def build_writer(settings: Settings, models: Models | None) -> Writer:
    if models is None:
        return ExtractiveWriter()
    return LLMWriter(models.synth, context_tokens=settings.context_tokens)


def build_fetcher(settings: Settings) -> Fetcher:
    http = HttpFetcher(
        FetchSettings(
            timeout_s=settings.fetch_timeout_s,
            max_bytes=settings.max_bytes,
            pdf_max_pages=settings.pdf_max_pages,
            allow_private=settings.allow_private_network,
        )
    )
    fetcher = reading_fetcher(http, browser_settings(settings))
    if settings.no_cache:
        return fetcher
    cache = SqlitePageCache(sleuth_home(settings.env) / "cache.db", ttl_s=settings.cache_ttl_s)
    return CachedFetcher(fetcher, cache, refresh=settings.refresh_cache)


def browser_settings(settings: Settings) -> BrowserSettings:
    if settings.browser not in ("auto", "always", "never"):
        raise UsageError(f"--browser must be auto, always or never, not {settings.browser!r}")
    env = settings.env
    return BrowserSettings(
        executable=settings.browser_executable,
        cdp_endpoint=settings.browser_cdp_endpoint,
        mode=settings.browser,  # type: ignore[arg-type]  # checked just above
        allow_private=settings.allow_private_network,
        proxy=env.get("HTTP_PROXY") or env.get("http_proxy") or None,
    )


def fallback_spec(settings: Settings) -> str:
    """--search-fallback, defaulting to wikipedia (news first when --since asks for fresh)."""
    spec = settings.search_fallback
    if spec is None:
        spec = "news,wikipedia" if settings.since_set else "wikipedia"
    spec = spec.strip()
    return f"multi:{spec}" if "," in spec and not spec.startswith("multi:") else spec


def backend_settings(settings: Settings) -> BackendSettings:
    env = {k: v for k, v in settings.env.items() if k.startswith("SLEUTH_")}
    return BackendSettings(env=env, include=settings.include)


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


def assemble(settings: Settings) -> Assembled:
    if settings.max_bytes < 1000:
        raise UsageError("the page size cap must be at least 1000 bytes")
    meter = make_meter(llm_settings(settings))
    primary, fallback, include = build_search_backends(settings)
    models = build_models(settings, meter)
    fetcher = build_fetcher(settings)
    engine = Engine(
        primary,
        fetcher,
        build_writer(settings, models),
        include=include,
        fallback=fallback,
        meter=meter,
        stages=build_stages(settings, models),
    )
    return Assembled(engine, meter, fetcher, models.all() if models else ())


def request_from(question: str, **options: Any) -> ResearchRequest:
    known = set(ResearchRequest.__dataclass_fields__)
    unknown = set(options) - known
    if unknown:
        raise UsageError(f"unknown research option(s): {', '.join(sorted(unknown))}")
    return ResearchRequest(question=question, **options)
