"""What one run may spend of its organization's quotas, enforced where it is spent: a search
past the allowance is not sent, a page past it is not read (its snippet stands in, as for any
page not read). Concurrent runs reserve their allowances before they start, so together they
never pass the quota; the run that reaches its allowance ends with what it has, and says so."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import FetchError, SearchError
from ..ports import Fetcher, SearchBackend, SearchQuery
from ..store.service import Allowance
from ..types import Page, SearchResult


@dataclass(slots=True)
class Budget:
    searches: int | None = None  # None: no quota on this meter
    pages: int | None = None
    refused: list[str] = field(default_factory=list)  # what was held back, said in the result

    @classmethod
    def of(cls, allowance: Allowance) -> Budget | None:
        if allowance.searches is None and allowance.pages_read is None:
            return None
        return cls(allowance.searches, allowance.pages_read)

    def take(self, meter: str) -> bool:
        left = getattr(self, meter)
        if left is None:
            return True
        if left <= 0:
            return False
        setattr(self, meter, left - 1)
        return True


class BudgetedSearch:
    """A search backend that stops sending searches once the run's allowance is spent."""

    def __init__(self, inner: SearchBackend, budget: Budget) -> None:
        self.inner, self.budget = inner, budget
        self.name = inner.name
        self.private = getattr(inner, "private", False)

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        if not self.budget.take("searches"):
            self.budget.refused.append(f"search {query.text!r}")
            raise SearchError(
                "not searched: the organization's search quota allows no more this month",
                self.name,
                cause="refused",
            )
        return await self.inner.search(query)

    async def aclose(self) -> None:
        close = getattr(self.inner, "aclose", None)
        if close is not None:
            await close()


class BudgetedFetcher:
    """A fetcher that stops reading pages from the network once the allowance is spent (pages
    already in the page cache are not metered, so this sits under the cache)."""

    def __init__(self, inner: Fetcher, budget: Budget) -> None:
        self.inner, self.budget = inner, budget

    async def fetch(self, url: str) -> Page:
        if not self.budget.take("pages"):
            self.budget.refused.append(url)
            raise FetchError(
                "not read: the organization's page quota allows no more this month",
                url,
                cause="quota",
            )
        return await self.inner.fetch(url)

    async def aclose(self) -> None:
        await self.inner.aclose()
