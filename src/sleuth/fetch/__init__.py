"""Reading pages: the safe HTTP fetcher, extraction, the page cache and domain lists."""

from __future__ import annotations

from .cache import CachedFetcher, SqlitePageCache, default_cache_path
from .domains import DomainFilteredFetcher, DomainPolicy
from .extract import Extracted, extract_html
from .guard import GuardPolicy, check_literal, check_url
from .http import FetchSettings, HttpFetcher
from .pdf import extract_pdf

__all__ = [
    "CachedFetcher",
    "DomainFilteredFetcher",
    "DomainPolicy",
    "Extracted",
    "FetchSettings",
    "GuardPolicy",
    "HttpFetcher",
    "SqlitePageCache",
    "check_literal",
    "check_url",
    "default_cache_path",
    "extract_html",
    "extract_pdf",
]
