"""`news`: dated news results through ddgs `.news()`, with publisher URLs unwrapped from the
click-tracking links some engines return (Bing `apiclick.aspx?...&url=`, Google redirects)."""

from __future__ import annotations

from ..ports import SearchBackend
from ..registry import BackendSettings, Registries
from .duckduckgo import DDGSearch, ddgs_client, delay_s

NAME = "news"


def factory(settings: BackendSettings, regs: Registries) -> SearchBackend:
    return DDGSearch(
        ddgs_client(settings), NAME, "news", delay_s(settings), settings.option or "auto"
    )


def register(regs: Registries) -> None:
    regs.search.register(NAME, factory, summary="dated news results via ddgs (keyless)")
