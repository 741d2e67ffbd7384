"""Domain allow/deny lists (`--allow-domain`, `--deny-domain`).

A listed domain covers itself and its strict subdomains: "python.org" covers "docs.python.org"
but not "evilpython.org". Deny wins over allow. An empty allow list allows everything.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import httpx2

from ..errors import BlockedURLError
from ..ports import Fetcher
from ..types import Page


@dataclass(frozen=True, slots=True)
class DomainPolicy:
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()

    @classmethod
    def from_lists(cls, allow: Iterable[str] = (), deny: Iterable[str] = ()) -> DomainPolicy:
        """Normalize user input: "https://Docs.Python.org/x", "*.python.org." -> "python.org"."""
        return cls(
            tuple(_clean(d) for d in allow if _clean(d)),
            tuple(_clean(d) for d in deny if _clean(d)),
        )

    @property
    def active(self) -> bool:
        return bool(self.allow or self.deny)

    def check(self, url: str) -> None:
        host = _host(url)
        if any(covers(domain, host) for domain in self.deny):
            raise BlockedURLError("domain denied", url, cause="domain")
        if self.allow and not any(covers(domain, host) for domain in self.allow):
            raise BlockedURLError("domain not allowed", url, cause="domain")


def covers(domain: str, host: str) -> bool:
    """True when `host` is `domain` or a strict subdomain of it (label boundary, not suffix)."""
    domain = _clean(domain)
    return bool(domain) and (host == domain or host.endswith("." + domain))


class DomainFilteredFetcher:
    """Applies a DomainPolicy before a fetch and to the page's final URL after redirects."""

    def __init__(self, inner: Fetcher, policy: DomainPolicy) -> None:
        self._inner = inner
        self._policy = policy

    async def fetch(self, url: str) -> Page:
        self._policy.check(url)
        page = await self._inner.fetch(url)
        if page.final_url:
            self._policy.check(page.final_url)
        return page

    async def aclose(self) -> None:
        await self._inner.aclose()


def _clean(domain: str) -> str:
    text = domain.strip().lower()
    if "://" in text:
        text = _host(text)
    text = text.split("/", 1)[0]
    return text.removeprefix("*.").strip(".")


def _host(url: str) -> str:
    try:
        return httpx2.URL(url).host.lower().rstrip(".")
    except (httpx2.InvalidURL, TypeError, ValueError) as exc:
        raise BlockedURLError(f"invalid url: {exc}", url) from exc
