"""The HTTP fetcher: read one untrusted URL safely and turn it into a Page.

Safety is layered: the SSRF guard checks the URL and every redirect hop before anything is sent
(redirects are followed here, never by the client); the body is streamed and cut at a size cap
after bounded decompression; a total deadline defeats slow-drip servers. Extraction (trafilatura,
pdfium) runs in a worker thread so a heavy page never stalls the event loop.
"""

from __future__ import annotations

import asyncio
import ipaddress
from dataclasses import dataclass
from datetime import UTC, datetime

import httpx2

from ..errors import BlockedURLError, FetchError
from ..types import Page
from .body import Body, Inflater, Kind, decode_text, kind_from_headers, settle_kind
from .extract import Extracted, extract_html
from .guard import GuardPolicy, Resolver, check_url, is_blocked_address
from .pdf import extract_pdf
from .tls import tls_context

# Fewer characters than this after extraction is an empty shell (a consent wall, a JS app).
MIN_TEXT_CHARS = 40
REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
ACCEPT = "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.5"
# Like browsers, open at most this many connections at once to one server (or to the proxy,
# when one carries every request): politer, and a small listen backlog is not overrun into
# SYN retransmits that cost a whole second.
PER_SERVER = 6


@dataclass(frozen=True, slots=True)
class FetchSettings:
    timeout_s: float = 10.0  # per request, connect+read
    total_timeout_s: float = 15.0  # whole body, defeats slow-drip servers
    max_bytes: int = 5_000_000  # decoded body cap: streamed and cut (also defeats gzip bombs)
    max_redirects: int = 5
    pdf_max_pages: int = 50
    allow_private: bool = False
    user_agent: str = "Sleuth/0.1 (+research)"
    per_server: int = PER_SERVER


class HttpFetcher:
    """Implements `sleuth.ports.Fetcher` over one shared, proxy-aware connection pool."""

    def __init__(
        self,
        settings: FetchSettings = FetchSettings(),
        client: httpx2.AsyncClient | None = None,
        *,
        resolver: Resolver | None = None,
    ) -> None:
        self._settings = settings
        self._resolver = resolver
        self._gates: dict[str, asyncio.Semaphore] = {}
        self._owns_client = client is None
        self._client = client or httpx2.AsyncClient(
            trust_env=True,
            follow_redirects=False,
            timeout=httpx2.Timeout(settings.timeout_s),
            verify=tls_context(),
        )

    async def fetch(self, url: str) -> Page:
        try:
            async with asyncio.timeout(self._settings.total_timeout_s):
                body = await self._download(url)
        except TimeoutError as exc:
            raise FetchError(
                f"timeout after {self._settings.total_timeout_s:g}s", url, cause="timeout"
            ) from exc
        except httpx2.TimeoutException as exc:
            raise FetchError("timeout", url, cause="timeout") from exc
        except httpx2.HTTPError as exc:
            raise FetchError(_transport_reason(exc), url, cause="unreachable") from exc
        except httpx2.InvalidURL as exc:
            raise FetchError(f"invalid redirect: {exc}", url) from exc
        except FetchError as exc:
            if exc.url:
                raise
            raise type(exc)(exc.reason, url) from exc
        return await asyncio.to_thread(_to_page, body, self._settings.pdf_max_pages)

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.aclose()

    def guard_policy(self, url: str) -> GuardPolicy:
        return GuardPolicy(allow_private=self._settings.allow_private, proxied=self._proxied(url))

    def _proxied(self, url: str) -> bool:
        # Ask the client itself which transport serves this URL, so the guard's idea of "a proxy
        # resolves this name" can never drift from where the request actually goes.
        try:
            transport = self._client._transport_for_url(httpx2.URL(url))
        except httpx2.InvalidURL:
            return False  # the guard refuses it with the reason
        return transport is not self._client._transport

    async def _download(self, url: str) -> Body:
        current = url
        for _hop in range(self._settings.max_redirects + 1):
            await check_url(current, self.guard_policy(current), resolver=self._resolver)
            async with (
                self._gate(current),
                self._client.stream("GET", current, headers=self._headers()) as response,
            ):
                self._check_peer(response, current)
                location = response.headers.get("location")
                if response.status_code in REDIRECT_CODES and location:
                    current = str(response.url.join(location))
                    continue
                if response.status_code >= 400:
                    raise FetchError(f"http {response.status_code}", url, cause="http")
                return await self._read(response, url)
        raise FetchError(f"too many redirects (>{self._settings.max_redirects})", url, cause="http")

    def _check_peer(self, response: httpx2.Response, url: str) -> None:
        """Refuse a response from a private address even when the name resolved to a public one
        a moment earlier (DNS rebinding): its body is never read. A proxy's own address is
        configuration and is not checked."""
        if self._settings.allow_private or self._proxied(url):
            return
        stream = response.extensions.get("network_stream")
        peer = stream.get_extra_info("server_addr") if stream is not None else None
        if not peer:
            return
        try:
            address = ipaddress.ip_address(str(peer[0]).split("%", 1)[0])
        except ValueError:
            return
        if is_blocked_address(address):
            raise BlockedURLError(f"connected to a private address {address} (DNS rebinding?)", url)

    def _gate(self, url: str) -> asyncio.Semaphore:
        """The connection limit for the server this request connects to (the proxy, if any)."""
        target = "proxy" if self._proxied(url) else httpx2.URL(url).netloc.decode("ascii")
        if target not in self._gates:
            self._gates[target] = asyncio.Semaphore(max(1, self._settings.per_server))
        return self._gates[target]

    async def _read(self, response: httpx2.Response, url: str) -> Body:
        mime, charset = _content_type(response.headers.get("content-type", ""))
        kind = kind_from_headers(mime, response.url.path)
        cap = self._settings.max_bytes
        if kind == "pdf" and int(response.headers.get("content-length") or 0) > cap:
            raise FetchError("too large", url, cause="too-large")
        inflater = Inflater(response.headers.get("content-encoding", ""))
        chunks: list[bytes] = []
        size = 0
        async for raw in response.aiter_raw():
            piece = inflater.feed(raw, cap - size + 1)
            chunks.append(piece)
            size += len(piece)
            if size > cap:
                break
        data = b"".join(chunks)
        return Body(url, str(response.url), mime, charset, data[:cap], truncated=size > cap)

    def _headers(self) -> dict[str, str]:
        return {
            "User-Agent": self._settings.user_agent,
            "Accept": ACCEPT,
            "Accept-Encoding": "gzip, deflate",
        }


def _to_page(body: Body, pdf_max_pages: int) -> Page:
    kind = settle_kind(kind_from_headers(body.mime, _path(body.final_url)), body)
    extracted = _extract(kind, body, pdf_max_pages)
    if len(extracted.text.strip()) < MIN_TEXT_CHARS:
        raise FetchError("no text", body.url, cause="no-text")
    return Page(
        url=body.url,
        title=extracted.title or body.final_url,
        text=extracted.text,
        fetched_at=datetime.now(UTC).isoformat(timespec="seconds"),
        content_type="application/pdf" if kind == "pdf" else (body.mime or "text/html"),
        final_url=body.final_url if body.final_url != body.url else None,
        published=extracted.published,
        scripted=extracted.scripted,
    )


def _extract(kind: Kind, body: Body, pdf_max_pages: int) -> Extracted:
    if kind == "pdf":
        if body.truncated:
            raise FetchError("too large", body.url, cause="too-large")
        try:
            return extract_pdf(body.data, max_pages=pdf_max_pages)
        except FetchError as exc:
            raise FetchError(exc.reason, body.url, cause=exc.cause) from exc
    text = decode_text(body)
    if kind == "text":
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        return Extracted(title=first[:200], text=text.strip(), published=None)
    return extract_html(text, body.final_url)


def _content_type(header: str) -> tuple[str, str | None]:
    mime, _, params = header.partition(";")
    charset = None
    for param in params.split(";"):
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset":
            charset = value.strip().strip("\"'") or None
    return mime.strip().lower(), charset


def _path(url: str) -> str:
    return httpx2.URL(url).path


def _transport_reason(exc: httpx2.HTTPError) -> str:
    if isinstance(exc, httpx2.ConnectError):
        return f"connect failed: {exc}" if str(exc) else "connect failed"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
