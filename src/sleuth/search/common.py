"""Helpers every search backend shares: one HTTP client with one error mapping, URL
normalization for dedupe, redirect unwrapping, the keyword ladder, and date/text cleanup.

Backends differ only in how they build a request and read a response; how a timeout, a 429 or a
non-JSON body becomes a `SearchError` is decided here once, so every backend fails the same way.
"""

from __future__ import annotations

import html
import re
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, TypeVar
from urllib.parse import parse_qsl, unquote, urlsplit

import httpx2

from ..errors import MissingKeyError, RateLimitedError, SearchCause, SearchError
from ..fetch.tls import tls_context
from ..registry import BackendSettings
from ..text import keywords
from ..types import SearchResult

USER_AGENT = "Sleuth/0.1 (local research engine; +https://pypi.org/project/sleuth/)"

# Responses a backend recognises as throttling besides HTTP 429 (e.g. GitHub's 403).
ThrottleCheck = Callable[[httpx2.Response], bool]


# ---------------------------------------------------------------- settings


Item = TypeVar("Item")


def endpoint(settings: BackendSettings, name: str, default: str) -> str:
    """`SLEUTH_<NAME>_ENDPOINT` when set (self-hosted mirrors, replay servers), else `default`."""
    override = settings.env.get(f"SLEUTH_{name.upper()}_ENDPOINT", "").strip()
    return (override or default).rstrip("/")


def require(settings: BackendSettings, var: str, backend: str) -> str:
    value = settings.env.get(var, "").strip()
    if not value:
        raise MissingKeyError(f"the {backend} search backend needs {var} to be set", backend)
    return value


# ---------------------------------------------------------------- HTTP


def _no_throttle(response: httpx2.Response) -> bool:
    return False


def retry_after_header(response: httpx2.Response) -> str | None:
    return response.headers.get("Retry-After")


# How long a throttled service asks to wait, in seconds as it wrote them (or None).
WaitOf = Callable[[httpx2.Response], str | None]


@dataclass(frozen=True, slots=True)
class Http:
    """A per-backend HTTP caller: one timeout, proxies from the environment, errors mapped."""

    backend: str
    timeout_s: float = 10.0
    transport: httpx2.AsyncBaseTransport | None = None  # tests inject a MockTransport
    throttled: ThrottleCheck = _no_throttle
    wait_of: WaitOf = retry_after_header  # Gemini says it in the body instead

    @classmethod
    def from_settings(
        cls, backend: str, settings: BackendSettings, throttled: ThrottleCheck = _no_throttle
    ) -> Http:
        return cls(backend, settings.timeout_s, settings.extra.get("transport"), throttled)

    async def request(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        json: Any = None,
    ) -> httpx2.Response:
        all_headers = {"User-Agent": USER_AGENT, **(headers or {})}
        async with httpx2.AsyncClient(
            timeout=self.timeout_s,
            transport=self.transport,
            trust_env=True,
            verify=tls_context(),
            follow_redirects=True,
        ) as client:
            try:
                response = await client.request(
                    method, url, params=params, headers=all_headers, json=json
                )
            except httpx2.TimeoutException as exc:
                raise self.error(f"timed out after {self.timeout_s:g} s", "timeout") from exc
            except (httpx2.ConnectError, httpx2.ProxyError) as exc:
                raise self.error(
                    f"could not connect ({_excerpt(str(exc), 80)})", "unreachable"
                ) from exc
            except httpx2.HTTPError as exc:
                raise self.error(f"request failed: {type(exc).__name__}: {exc}") from exc
        self.check_status(response)
        return response

    def check_status(self, response: httpx2.Response) -> None:
        status = response.status_code
        if status == 429 or self.throttled(response):
            wait = self.wait_of(response)
            hint = f"; retry after {wait} s" if wait else ""
            cause = f"{self.backend}: rate limited (HTTP {status}{hint})"
            raise RateLimitedError(cause, self.backend)
        if status in (401, 403):
            raise self.error(
                f"HTTP {status}: the service refused the request (check the key)", "refused"
            )
        if status >= 400:
            raise self.error(f"HTTP {status}: {_excerpt(response.text)}", "refused")

    async def get_json(self, url: str, **kwargs: Any) -> Any:
        return self.decode_json(await self.request("GET", url, **kwargs))

    async def post_json(self, url: str, body: Any, **kwargs: Any) -> Any:
        return self.decode_json(await self.request("POST", url, json=body, **kwargs))

    def decode_json(self, response: httpx2.Response) -> Any:
        try:
            return response.json()
        except ValueError as exc:
            raise self.error(f"returned non-JSON: {_excerpt(response.text)!r}") from exc

    def error(self, detail: str, cause: SearchCause = "error") -> SearchError:
        return SearchError(f"{self.backend}: {detail}", self.backend, cause=cause)

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Turn a response that lacks the documented fields into a SearchError, not a crash."""
        try:
            yield
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise self.error(f"unexpected response shape ({type(exc).__name__}: {exc})") from exc


def results_of(
    items: Iterable[Item], build: Callable[[Item, int], SearchResult]
) -> list[SearchResult]:
    """Each item built into a result, ranked over the ones kept. An item that is not the
    documented shape (a `url` that is a number, a missing field) is skipped on its own: one
    bad row used to cost the whole page. When no item is usable, the first problem is raised
    (inside `Http.reading` it becomes the backend's SearchError)."""
    kept: list[SearchResult] = []
    first: Exception | None = None
    for item in items:
        try:
            result = build(item, len(kept) + 1)
            if not (isinstance(result.url, str) and result.url.strip()):
                raise ValueError(f"result url is not text: {result.url!r}")
            if not isinstance(result.title, str):
                raise ValueError(f"result title is not text: {result.title!r}")
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            first = first or exc
            continue
        kept.append(result)
    if not kept and first is not None:
        raise first
    return kept


def _excerpt(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat[:limit] + ("…" if len(flat) > limit else "")


# ---------------------------------------------------------------- URLs


_TARGET_PARAMS = ("url", "u", "uddg", "q", "target", "dest")
_YAHOO_RU = re.compile(r"/RU=([^/]+)/")


def unwrap_redirect(url: str) -> str:
    """The publisher URL inside a search engine's click-tracking link, else `url` unchanged."""
    parts = urlsplit(url)
    for key, value in parse_qsl(parts.query):
        if key.lower() in _TARGET_PARAMS and value.startswith(("http://", "https://")):
            return unwrap_redirect(value)
    match = _YAHOO_RU.search(parts.path)
    if match and unquote(match.group(1)).startswith(("http://", "https://")):
        return unquote(match.group(1))
    return url


# ---------------------------------------------------------------- text


def model_preferences(language: str | None, since: date | None) -> str:
    """The search language and `--since` as instructions, for a backend whose search is a
    model's (its tool takes no such parameters)."""
    said = ""
    if language:
        said += f" Prefer pages in the language with BCP 47 code {language}."
    if since:
        said += f" Prefer pages published on or after {since.isoformat()}."
    return said


def keyword_ladder(text: str) -> list[str]:
    """Shorter keyword queries to retry a zero-result question with: 4, then 2, then 1 tokens."""
    tokens = keywords(text)
    rungs: list[str] = []
    for size in (4, 2, 1):
        rung = " ".join(tokens[:size])
        if rung and rung != text.strip() and rung not in rungs:
            rungs.append(rung)
    return rungs


_TAG = re.compile(r"<[^>]+>")


def strip_html(text: str | None, limit: int = 400) -> str:
    flat = " ".join(html.unescape(_TAG.sub(" ", text or "")).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


# ---------------------------------------------------------------- dates


def iso_date(value: Any) -> str | None:
    """`YYYY-MM-DD` from an ISO string, `YYYY/MM/DD ...`, or epoch seconds; None if unknown."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return datetime.fromtimestamp(value, UTC).date().isoformat()
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip().replace("/", "-")
    for candidate in (text, text[:19], text[:10]):
        try:
            return datetime.fromisoformat(candidate).date().isoformat()
        except ValueError:
            continue
    return None


def days_since(since: date, today: date | None = None) -> int:
    return max(0, ((today or datetime.now(UTC).date()) - since).days)


async def search_with_ladder(
    search_once: Callable[[str], Awaitable[list[SearchResult]]], text: str
) -> list[SearchResult]:
    """Run `text`; if it finds nothing, retry with 4, 2, then 1 content tokens.

    Keyword engines (MediaWiki, StackExchange) match every word, so a natural-language question
    often finds nothing while its key terms find the right pages.
    """
    results = await search_once(text)
    for rung in keyword_ladder(text) if not results else []:
        results = await search_once(rung)
        if results:
            break
    return results


# How connection failures read in error text we cannot type-check (ddgs wraps its HTTP
# client's errors into strings).
_UNREACHABLE = re.compile(
    r"dns|connecterror|connect error|error sending request|name or service not known|"
    r"temporary failure in name resolution|network is unreachable|connection refused|"
    r"no route to host|failed to resolve|nodename nor servname",
    re.IGNORECASE,
)


def unreachable(text: str) -> bool:
    """True when an error's text says the service could not be reached at all."""
    return bool(_UNREACHABLE.search(text))
