"""`duckduckgo`: keyless web search through the `ddgs` library, Sleuth's default backend.

ddgs is blocking, so each call runs in a worker thread, and calls are spaced process-wide by
`SLEUTH_DDG_DELAY_MS` (default 1000) because DuckDuckGo throttles bursts. ddgs answers a
throttled or blocked request with "No results found." (it drops non-200 pages silently), and a
genuinely empty answer across all its engines is vanishingly rare, so that message is reported as
a rate limit: throttling must never look like an empty round.

A search language becomes ddgs's `region`, which is DuckDuckGo's `kl` region code
(`country-language`: `de-de`, `uk-en`, `ch-fr`, `wt-wt` for none): the tag's own country when
DuckDuckGo has that pair, else the language's home region; a language DuckDuckGo has no region
for searches all regions (`wt-wt`) rather than the default `us-en`.

Testing aid: `SLEUTH_DDG_REPLAY=FILE` answers from a recorded JSON file instead of the network
(a list of ddgs result dicts, or `{"text": ..., "news": ...}`, where a value may also be
`{"raise": "RatelimitException", "message": "..."}`).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Literal, Protocol

from ..errors import RateLimitedError, SearchError, UsageError
from ..langtag import LangTag, parse_tag
from ..ports import SearchBackend, SearchQuery
from ..registry import BackendSettings, Registries
from ..types import SearchResult
from .common import days_since, iso_date, results_of, strip_html, unreachable, unwrap_redirect

NAME = "duckduckgo"
Kind = Literal["text", "news"]
DEFAULT_REGION = "us-en"
ALL_REGIONS = "wt-wt"
# DuckDuckGo's documented `kl` region codes.
REGIONS = frozenset(
    """xa-ar xa-en ar-es au-en at-de be-fr be-nl br-pt bg-bg ca-en ca-fr ct-ca cl-es cn-zh
    co-es hr-hr cz-cs dk-da ee-et fi-fi fr-fr de-de gr-el hk-tzh hu-hu in-en id-id id-en ie-en
    il-he it-it jp-jp kr-kr lv-lv lt-lt xl-es my-ms my-en mx-es nl-nl nz-en no-no pe-es ph-en
    ph-tl pl-pl pt-pt ro-ro ru-ru sg-en sk-sk sl-sl za-en es-es se-sv ch-de ch-fr ch-it tw-tzh
    th-th tr-tr ua-uk uk-en us-en ue-es ve-es vn-vi wt-wt""".split()
)
# kl's spelling where it is not ISO's: its country and language parts.
_KL_COUNTRY = {"GB": "uk"}
_KL_LANGUAGE = {"ja": "jp", "ko": "kr", "nb": "no"}
# A language's home region when the tag names none (or one DuckDuckGo does not pair with it).
_HOME = {
    "en": "us-en", "ar": "xa-ar", "ca": "ct-ca", "cs": "cz-cs", "da": "dk-da", "el": "gr-el",
    "et": "ee-et", "he": "il-he", "ja": "jp-jp", "ko": "kr-kr", "ms": "my-ms", "nb": "no-no",
    "sv": "se-sv", "tl": "ph-tl", "uk": "ua-uk", "vi": "vn-vi", "zh": "cn-zh", "sl": "sl-sl",
}  # fmt: skip


class DDGSLike(Protocol):
    def text(self, query: str, **kwargs: Any) -> list[dict[str, Any]]: ...

    def news(self, query: str, **kwargs: Any) -> list[dict[str, Any]]: ...


@dataclass(slots=True)
class Pacer:
    """Spaces calls process-wide; runs inside the worker thread, so a plain lock is enough."""

    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    _next: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def wait(self, delay_s: float) -> None:
        with self._lock:
            now = self.clock()
            if self._next > now:
                self.sleep(self._next - now)
                now = self._next
            self._next = now + delay_s


PACER = Pacer()


@dataclass(slots=True)
class DDGSearch:
    """One ddgs category (`text` or `news`) behind the SearchBackend interface."""

    client: DDGSLike
    name: str = NAME
    kind: Kind = "text"
    delay_s: float = 1.0
    engine: str = "auto"  # ddgs `backend`: auto, or e.g. "duckduckgo", "bing,brave"
    pacer: Pacer = field(default_factory=lambda: PACER)

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        rows = await asyncio.to_thread(self._call, query)
        try:
            return results_of(rows, self._result)
        except (KeyError, TypeError, AttributeError) as exc:
            raise SearchError(f"{self.name}: unexpected ddgs result ({exc!r})", self.name) from exc

    def _call(self, query: SearchQuery) -> list[dict[str, Any]]:
        from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException

        self.pacer.wait(self.delay_s)
        method = self.client.news if self.kind == "news" else self.client.text
        try:
            rows = method(
                query.text,
                region=region_for(query.language),
                safesearch="moderate",
                timelimit=_timelimit(query.since),
                max_results=query.limit,
                backend=self.engine,
            )
        except RatelimitException as exc:
            raise RateLimitedError(f"{self.name}: rate limited ({exc})", self.name) from exc
        except TimeoutException as exc:
            raise SearchError(f"{self.name}: timed out", self.name, cause="timeout") from exc
        except DDGSException as exc:
            raise self._failure(exc) from exc
        if not isinstance(rows, list):
            raise SearchError(f"{self.name}: ddgs returned {type(rows).__name__}", self.name)
        return rows[: query.limit]

    def _failure(self, exc: Exception) -> SearchError:
        """ddgs's error in words: its text names whichever engine it tried last (often not
        DuckDuckGo), so only what kind of failure it was is kept."""
        text = str(exc)
        if "no results found" in text.lower():
            cause = f"{self.name}: no results from any engine (throttled or blocked)"
            return RateLimitedError(cause, self.name)
        if unreachable(text):
            kind = "DNS lookup failed" if "dns" in text.lower() else "connection failed"
            message = f"{self.name}: could not reach the search service ({kind})"
            return SearchError(message, self.name, cause="unreachable")
        return SearchError(f"{self.name}: {text[:200]}", self.name)

    def _result(self, row: dict[str, Any], rank: int) -> SearchResult:
        url = unwrap_redirect(row["url"] if self.kind == "news" else row["href"])
        snippet = strip_html(row.get("body"))
        if self.kind == "news" and row.get("source"):
            snippet = f"{row['source']}: {snippet}"
        return SearchResult(
            url=url,
            title=strip_html(row.get("title") or url),
            snippet=snippet,
            backend=self.name,
            rank=rank,
            published=iso_date(row.get("date")),
        )


def region_for(language: str | None) -> str:
    """The ddgs `region` (DuckDuckGo's `kl`) for a search language tag."""
    if not language:
        return DEFAULT_REGION
    tag = parse_tag(language)
    lang = _KL_LANGUAGE.get(tag.language, tag.language)
    if tag.language == "zh" and (tag.script == "Hant" or tag.region in ("TW", "HK")):
        lang = "tzh"
    if tag.country:
        own = f"{_KL_COUNTRY.get(tag.country, tag.country.lower())}-{lang}"
        if own in REGIONS:
            return own
    return _home(tag, lang)


def _home(tag: LangTag, lang: str) -> str:
    if lang == "tzh":
        return "tw-tzh"
    home = _HOME.get(tag.language, f"{tag.language}-{lang}")
    return home if home in REGIONS else ALL_REGIONS


def _timelimit(since: date | None) -> str | None:
    if since is None:
        return None
    days = days_since(since)
    return "d" if days <= 1 else "w" if days <= 7 else "m" if days <= 31 else "y"


# ---------------------------------------------------------------- building


@dataclass(frozen=True, slots=True)
class ReplayDDGS:
    """Answers ddgs calls from a recorded JSON file (SLEUTH_DDG_REPLAY; a testing aid)."""

    path: Path

    def text(self, query: str, **kwargs: Any) -> list[dict[str, Any]]:
        return self._answer("text")

    def news(self, query: str, **kwargs: Any) -> list[dict[str, Any]]:
        return self._answer("news")

    def _answer(self, kind: str) -> list[dict[str, Any]]:
        from ddgs import exceptions

        data = json.loads(self.path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and "raise" not in data:
            data = data.get(kind, [])
        if isinstance(data, dict):
            error = getattr(exceptions, str(data["raise"]), exceptions.DDGSException)
            raise error(data.get("message", "replayed error"))
        return data  # type: ignore[no-any-return]


def ddgs_client(settings: BackendSettings) -> DDGSLike:
    """The injected client (tests), a replay file (CLI tests), or the real ddgs."""
    injected = settings.extra.get("ddgs")
    if injected is not None:
        return injected  # type: ignore[no-any-return]
    replay = settings.env.get("SLEUTH_DDG_REPLAY", "").strip()
    if replay:
        return ReplayDDGS(Path(replay))
    from ddgs import DDGS

    # ddgs resolves names and connects itself (not through httpx): hand it the proxy the
    # environment names, or it bypasses HTTP(S)_PROXY.
    return DDGS(proxy=settings.proxy, timeout=max(1, round(settings.timeout_s)))


def delay_s(settings: BackendSettings) -> float:
    raw = settings.env.get("SLEUTH_DDG_DELAY_MS", "1000").strip() or "1000"
    try:
        return max(0, int(raw)) / 1000
    except ValueError as exc:
        raise UsageError(f"SLEUTH_DDG_DELAY_MS must be milliseconds, got {raw!r}") from exc


def factory(settings: BackendSettings, regs: Registries) -> SearchBackend:
    return DDGSearch(
        ddgs_client(settings), NAME, "text", delay_s(settings), settings.option or "auto"
    )


def register(regs: Registries) -> None:
    regs.search.register(
        NAME,
        factory,
        summary="DuckDuckGo and friends via ddgs (keyless; default)",
        aliases=("ddg", "ddgs"),
    )
