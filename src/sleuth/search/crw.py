"""`crw`: a crw (fastCRW) server's Firecrawl-compatible `/v1/search`, at `SLEUTH_CRW_URL`.

Self-hosted (`http://localhost:3000`; its Docker stack starts the search sidecar `/v1/search`
needs) or the hosted `https://fastcrw.com/api`. `SLEUTH_CRW_KEY` is sent as a bearer token when
set: a self-hosted server asks for one only when it has `[auth] api_keys`. The request and the
reader are Firecrawl's (`firecrawl.py`), `crw:scrape` included; the search language goes out as
crw's `lang`.
"""

from __future__ import annotations

from ..langtag import parse_tag
from ..ports import SearchBackend
from ..registry import BackendSettings, Registries
from .common import Http, require
from .firecrawl import Firecrawl, scrape_option

NAME = "crw"
URL = "SLEUTH_CRW_URL"
KEY = "SLEUTH_CRW_KEY"


def language_of(language: str) -> dict[str, str]:
    return {"lang": parse_tag(language).language}


def factory(settings: BackendSettings, regs: Registries) -> SearchBackend:
    base = settings.env.get("SLEUTH_CRW_ENDPOINT", "").strip() or require(settings, URL, NAME)
    key = settings.env.get(KEY, "").strip() or None
    http = Http.from_settings(NAME, settings)
    url = f"{base.rstrip('/')}/v1/search"
    return Firecrawl(http, url, key, NAME, language_of, scrape_option(settings, NAME))


def register(regs: Registries) -> None:
    regs.search.register(
        NAME, factory, summary="a crw (fastCRW) server's search (Firecrawl-compatible)", needs=URL
    )
