"""Sleuth: a local deep-research engine whose every claim cites a source it actually read.

    from sleuth import research
    result = await research("How long are Example Cloud audit logs kept?", search="searxng")
    print(result.answer)

`Sleuth` (the application object) owns the shared resources and every use case: keep one per
process and call `ask`, `stream`, `search`, `resume`, `continue_`, `rerun`, `diff`, `export`,
`doctor` on it. `Engine.run(request)` is the underlying async iterator of typed events (see
`sleuth.events`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import SleuthError
from .events import Done, Event, Failed
from .types import ResearchRequest, Result

if TYPE_CHECKING:
    from .app.application import Sleuth
    from .engine import Engine

__all__ = ["Done", "Engine", "Event", "Failed", "ResearchRequest", "Result", "Sleuth",
           "SleuthError", "research"]  # fmt: skip
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # The engine pulls in extraction and HTTP; load it on first use, not on `import sleuth`
    # (which the CLI's shell completion pays for on every TAB).
    if name == "Engine":
        from .engine import Engine

        return Engine
    if name == "Sleuth":
        from .app.application import Sleuth

        return Sleuth
    raise AttributeError(f"module 'sleuth' has no attribute {name!r}")


async def research(question: str, **options: Any) -> Result:
    """Run one research request and return its result; raises SleuthError on failure.

    Options are setting names (`search`, `include`, `max_sources`, `since`, `deep`, ...; see
    docs/settings.md) or `ResearchRequest` fields; they override what config.toml, the profile
    and SLEUTH_* variables set (`Sleuth.from_env`). The run is not saved as a session unless
    `no_sessions=False`.
    """
    from .app.application import Sleuth

    options.setdefault("no_sessions", True)
    async with Sleuth.from_env() as app:  # config.toml and SLEUTH_* as every face reads them
        return await app.ask(question, **options)
