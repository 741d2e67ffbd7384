"""`gemini`: Gemini's grounding with Google Search (`generateContent` with the `google_search`
tool), with the key already set for Gemini models (`GEMINI_API_KEY`, else `GOOGLE_API_KEY`;
`--search=gemini:MODEL` picks the model; `SLEUTH_GEMINI_ENDPOINT` replaces the API's base URL,
`https://generativelanguage.googleapis.com/v1beta`).

The model searches and answers; the web pages its answer is grounded on
(`groundingMetadata.groundingChunks[].web`), in the order Google lists them, become results. Its
answer is never used: a result's snippet stays empty, so a page Sleuth cannot read is dropped,
never quoted from the model, and every page is fetched, read and checked through Sleuth's
network guard like any other backend's. Google gives each page as a redirect link on
`vertexaisearch.cloud.google.com` and its site name as the title: each link is resolved by
asking that host for its `Location` (redirects are not followed, and no other host is asked),
so the result is the publisher's own URL; a link that does not resolve is kept as given.
The language and `--since` are asked for in the instructions (the tool has no parameters).
The call's tokens and Google's grounding fee are billed to the key, outside Sleuth's meter.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import quote, urlsplit

import httpx2

from ..errors import MissingKeyError, SearchError
from ..fetch.tls import tls_context
from ..ports import SearchBackend, SearchQuery
from ..registry import BackendSettings, Registries
from ..types import SearchResult
from .common import USER_AGENT, Http, endpoint, model_preferences, results_of, strip_html

NAME = "gemini"
KEYS = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
DEFAULT_ENDPOINT = "https://generativelanguage.googleapis.com/v1beta"  # + /models/M:generateContent
DEFAULT_MODEL = "gemini-2.5-flash"
REDIRECT_HOST = "vertexaisearch.cloud.google.com"
TIMEOUT_S = 60.0  # a model that searches and answers takes tens of seconds
RESOLVE_TIMEOUT_S = 5.0  # one redirect answer; past this the link is kept as given
INSTRUCTIONS = (
    "Search the web with Google Search for the user's query and answer it briefly from the "
    "pages you find. Prefer primary and authoritative sources."
)


@dataclass(slots=True)  # not frozen: SearchBackend.name is a settable protocol member
class GeminiGrounding:
    http: Http
    url: str
    key: str
    name: str = NAME

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        headers = {"x-goog-api-key": self.key}
        try:
            data = await self.http.post_json(self.url, body(query), headers=headers)
        except SearchError as exc:
            if "API key not valid" in str(exc) or "API_KEY_INVALID" in str(exc):
                # Gemini answers a bad key with 400 API_KEY_INVALID where others send 401.
                raise self.http.error(
                    "HTTP 400 API_KEY_INVALID: the service refused the key (check the key)",
                    "refused",
                ) from exc
            raise
        with self.http.reading():
            candidate = data["candidates"][0]
            chunks = (candidate.get("groundingMetadata") or {}).get("groundingChunks") or []
            results = results_of(chunks, _result)[: query.limit]
        return await self.resolved(results)

    async def resolved(self, results: list[SearchResult]) -> list[SearchResult]:
        """Each Google redirect link replaced by the URL it points to, when it says; two links
        to one page are one result, ranks closed up."""
        async with httpx2.AsyncClient(
            timeout=RESOLVE_TIMEOUT_S,
            transport=self.http.transport,
            trust_env=True,
            verify=tls_context(),
            follow_redirects=False,
        ) as client:
            targets = await asyncio.gather(*(_target(client, r.url) for r in results))
        by_url: dict[str, SearchResult] = {}
        for result, target in zip(results, targets, strict=True):
            by_url.setdefault(target or result.url, result)
        return [
            replace(r, url=url, rank=rank) for rank, (url, r) in enumerate(by_url.items(), start=1)
        ]


def body(query: SearchQuery) -> dict[str, Any]:
    said = INSTRUCTIONS + model_preferences(query.language, query.since)
    return {
        "systemInstruction": {"parts": [{"text": said}]},
        "contents": [{"role": "user", "parts": [{"text": query.text}]}],
        "tools": [{"google_search": {}}],
    }


async def _target(client: httpx2.AsyncClient, url: str) -> str | None:
    """Where a Google grounding redirect link points, or None (not one, or no answer)."""
    if urlsplit(url).hostname != REDIRECT_HOST:
        return None
    try:
        response = await client.get(url, headers={"User-Agent": USER_AGENT})
    except httpx2.HTTPError:
        return None
    location = response.headers.get("Location", "")
    ok = response.is_redirect and location.startswith(("http://", "https://"))
    return location if ok else None


def wait_of(response: httpx2.Response) -> str | None:
    """`Retry-After`, else the seconds of the `RetryInfo` detail Gemini sends with a 429."""
    if response.headers.get("Retry-After"):
        return response.headers["Retry-After"]
    try:
        details = response.json()["error"]["details"]
    except (ValueError, KeyError, TypeError):
        return None
    for detail in details if isinstance(details, list) else []:
        delay = detail.get("retryDelay") if isinstance(detail, dict) else None
        if isinstance(delay, str) and delay.endswith("s") and delay[:-1].replace(".", "").isdigit():
            return delay[:-1]
    return None


def _result(chunk: dict[str, Any], rank: int) -> SearchResult:
    web = chunk["web"]
    # No snippet: the model's sentence is not the page's text (see the module docstring).
    title = strip_html(web.get("title") or web.get("domain") or web["uri"])
    return SearchResult(url=web["uri"], title=title, snippet="", backend=NAME, rank=rank)


def factory(settings: BackendSettings, regs: Registries) -> SearchBackend:
    key = next((v.strip() for k in KEYS if (v := settings.env.get(k, "")).strip()), "")
    if not key:
        raise MissingKeyError(f"the {NAME} search backend needs {KEYS[0]} (or {KEYS[1]})", NAME)
    model = quote(settings.option or DEFAULT_MODEL)
    url = f"{endpoint(settings, NAME, DEFAULT_ENDPOINT)}/models/{model}:generateContent"
    transport = settings.extra.get("transport")
    http = Http(NAME, max(settings.timeout_s, TIMEOUT_S), transport, wait_of=wait_of)
    return GeminiGrounding(http, url, key.split(",")[0].strip())


def register(regs: Registries) -> None:
    regs.search.register(
        NAME,
        factory,
        summary="Gemini grounding with Google Search (the pages the model grounds on)",
        needs=KEYS[0],
    )
