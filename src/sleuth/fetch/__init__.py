"""Reading pages: the safe HTTP fetcher, extraction, the page cache and domain lists.

Names load on first use: the run needs the domain lists long before it needs extraction, and
`sleuth --help` needs neither.
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "CachedFetcher": "cache",
    "SqlitePageCache": "cache",
    "default_cache_path": "cache",
    "DomainFilteredFetcher": "domains",
    "DomainPolicy": "domains",
    "Extracted": "extract",
    "extract_html": "extract",
    "GuardPolicy": "guard",
    "check_literal": "guard",
    "check_url": "guard",
    "FetchSettings": "http",
    "HttpFetcher": "http",
    "extract_pdf": "pdf",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'sleuth.fetch' has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
