"""Sleuth: a local deep-research engine whose every claim cites a source it actually read.

    from sleuth import research
    result = await research("How long are Example Cloud audit logs kept?", search="searxng")
    print(result.answer)

`Engine.run(request)` is the underlying async iterator of typed events (see `sleuth.events`).
"""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any

from .errors import SleuthError
from .events import Done, Event, Failed
from .types import ResearchRequest, Result

if TYPE_CHECKING:
    from .engine.engine import Engine

__all__ = ["Engine", "Event", "ResearchRequest", "Result", "SleuthError", "research"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # The engine pulls in extraction and HTTP; load it on first use, not on `import sleuth`
    # (which the CLI's shell completion pays for on every TAB).
    if name == "Engine":
        from .engine.engine import Engine

        return Engine
    raise AttributeError(f"module 'sleuth' has no attribute {name!r}")


async def research(question: str, **options: Any) -> Result:
    """Run one research request and return its result; raises SleuthError on failure.

    Options are `ResearchRequest` fields (max_sources, depth, ...) and `Settings` fields
    (search, include, base_url, model, no_cache, ...).
    """
    from .app.assemble import Settings, assemble, request_from

    setting_names = {f.name for f in fields(Settings)}
    settings = Settings().with_(**{k: v for k, v in options.items() if k in setting_names})
    request = request_from(question, **{k: v for k, v in options.items() if k not in setting_names})
    built = assemble(settings)
    try:
        async for event in built.engine.run(request):
            if isinstance(event, Done):
                return event.result
            if isinstance(event, Failed):
                raise event.exception or SleuthError(event.error)
    finally:
        await built.aclose()
    raise SleuthError("the run ended without a result")
