"""`github`: GitHub repository search (`/search/repositories`); `SLEUTH_GITHUB_TOKEN` optional
(raises the rate limit from 10 to 30 searches a minute)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx2

from ..ports import SearchBackend, SearchQuery
from ..registry import BackendSettings, Registries
from ..types import SearchResult
from .common import Http, endpoint, iso_date, results_of, strip_html

NAME = "github"
DEFAULT_ENDPOINT = "https://api.github.com/search/repositories"


def _throttled(response: httpx2.Response) -> bool:
    # GitHub answers exhausted primary and secondary limits with 403, not only 429.
    return response.status_code == 403 and (
        response.headers.get("x-ratelimit-remaining") == "0" or "rate limit" in response.text
    )


@dataclass(slots=True)  # not frozen: SearchBackend.name is a settable protocol member
class GitHub:
    http: Http
    url: str
    token: str = ""
    name: str = NAME

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        q = query.text + (f" pushed:>={query.since.isoformat()}" if query.since else "")
        headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        params = {"q": q, "per_page": min(query.limit, 100)}
        body = await self.http.get_json(self.url, params=params, headers=headers)
        with self.http.reading():
            return results_of(body["items"], _result)


def _result(item: dict[str, Any], rank: int) -> SearchResult:
    facts = [f"★ {item.get('stargazers_count', 0)}"]
    if item.get("language"):
        facts.append(str(item["language"]))
    description = strip_html(item.get("description")) or "(no description)"
    return SearchResult(
        url=item["html_url"],
        title=item["full_name"],
        snippet=f"{description} ({', '.join(facts)})",
        backend=NAME,
        rank=rank,
        published=iso_date(item.get("pushed_at") or item.get("updated_at")),
    )


def factory(settings: BackendSettings, regs: Registries) -> SearchBackend:
    http = Http.from_settings(NAME, settings, _throttled)
    token = settings.env.get("SLEUTH_GITHUB_TOKEN", "").strip()
    return GitHub(http, endpoint(settings, NAME, DEFAULT_ENDPOINT), token)


def register(regs: Registries) -> None:
    regs.search.register(
        NAME, factory, summary="GitHub repositories (SLEUTH_GITHUB_TOKEN optional)"
    )
