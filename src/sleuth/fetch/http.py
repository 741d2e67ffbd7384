"""The HTTP fetcher: read one untrusted URL safely and turn it into a Page.

Safety is layered: the SSRF guard checks the URL and every redirect hop before anything is sent
(redirects are followed here, never by the client); the body is streamed and cut at a size cap
after bounded decompression; a total deadline defeats slow-drip servers. Extraction (trafilatura,
pdfium) runs in a sandbox worker process with a memory and a time limit (`sandbox.py`), so a
hostile document can neither stall the event loop, nor exhaust memory, nor outlive its read.
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TypeVar
from urllib.parse import urlsplit

import httpx2

from ..errors import BlockedURLError, FetchError
from ..types import FetchedImage, Page
from .body import Body, Inflater, kind_from_headers, settle_kind
from .guard import GuardPolicy, Resolver, check_url, is_blocked_address
from .media import IMAGE_TYPES, image_type
from .parse import to_page
from .sandbox import Sandbox, shared_sandbox
from .tls import tls_context

REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
ACCEPT = "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.5"
IMAGE_ACCEPT = ",".join(IMAGE_TYPES)
T = TypeVar("T")
Reader = Callable[[httpx2.Response, str], Awaitable[T]]
# Bodies up to this size that are not PDFs are parsed in a thread: starting a sandbox worker
# costs about a second, more than a whole quick run on a fast network (see `_parse`).
IN_PROCESS_BYTES = 512 * 1024
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
    image_max_bytes: int = 300_000  # an image of a read page larger than this is not shown


class HttpFetcher:
    """Implements `sleuth.ports.Fetcher` over one shared, proxy-aware connection pool."""

    def __init__(
        self,
        settings: FetchSettings = FetchSettings(),
        client: httpx2.AsyncClient | None = None,
        *,
        resolver: Resolver | None = None,
        sandbox: Sandbox | None = None,
    ) -> None:
        self._settings = settings
        self._resolver = resolver
        self._sandbox = sandbox or shared_sandbox()
        self._gates: dict[str, asyncio.Semaphore] = {}
        self._owns_client = client is None
        self._client = client or httpx2.AsyncClient(
            trust_env=True,
            follow_redirects=False,
            timeout=httpx2.Timeout(settings.timeout_s),
            verify=tls_context(),
        )

    async def fetch(self, url: str) -> Page:
        async with self._failures(url):
            body = await self._download(url, ACCEPT, self._read)
        try:
            return await self._parse(body)
        except FetchError as exc:
            if exc.url:
                raise
            raise type(exc)(exc.reason, url, cause=exc.cause) from exc

    async def fetch_image(self, url: str) -> FetchedImage:
        """Download an image a read page shows, through the same guard, redirect checks, peer
        check and deadline as a page: only a type of `IMAGE_TYPES` whose bytes agree with it,
        at most `image_max_bytes`; anything else raises FetchError."""
        async with self._failures(url):
            image = await self._download(url, IMAGE_ACCEPT, self._read_image)
        return image

    @asynccontextmanager
    async def _failures(self, url: str) -> AsyncIterator[None]:
        """Every way a download fails, as a FetchError naming `url`; the total deadline."""
        try:
            async with asyncio.timeout(self._settings.total_timeout_s):
                yield
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
            raise type(exc)(exc.reason, url, cause=exc.cause) from exc

    async def _parse(self, body: Body) -> Page:
        """Small HTML and text pages parse in a thread of this process (bounded: the element
        cap keeps trafilatura linear); PDFs and large pages, where the bombs are, in the
        sandbox, whose workers start the first time one is needed."""
        pages = self._settings.pdf_max_pages
        if len(body.data) <= IN_PROCESS_BYTES and not _is_pdf(body):
            return await asyncio.to_thread(to_page, body, pages)
        return await self._sandbox.run(to_page, body, pages, size=len(body.data))

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

    async def _download(self, url: str, accept: str, read: Reader[T]) -> T:
        current = url
        for _hop in range(self._settings.max_redirects + 1):
            await check_url(current, self.guard_policy(current), resolver=self._resolver)
            async with (
                self._gate(current),
                self._client.stream("GET", current, headers=self._headers(accept)) as response,
            ):
                self._check_peer(response, current)
                location = response.headers.get("location")
                if response.status_code in REDIRECT_CODES and location:
                    current = str(response.url.join(location))
                    continue
                if response.status_code >= 400:
                    raise FetchError(f"http {response.status_code}", url, cause="http")
                return await read(response, url)
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
        data = await self._bounded(response, cap)
        return Body(url, str(response.url), mime, charset, data[:cap], truncated=len(data) > cap)

    async def _read_image(self, response: httpx2.Response, url: str) -> FetchedImage:
        mime, _ = _content_type(response.headers.get("content-type", ""))
        if mime not in IMAGE_TYPES:
            raise FetchError(f"not an image this report shows: {mime or 'no type'}", url,
                             cause="unsupported")  # fmt: skip
        cap = self._settings.image_max_bytes
        if int(response.headers.get("content-length") or 0) > cap:
            raise FetchError("image too large", url, cause="too-large")
        data = await self._bounded(response, cap)
        if len(data) > cap:
            raise FetchError("image too large", url, cause="too-large")
        checked = image_type(mime, data[:16])
        if checked is None:
            raise FetchError(f"the bytes are not {mime}", url, cause="unsupported")
        return FetchedImage(url, checked, data)

    async def _bounded(self, response: httpx2.Response, cap: int) -> bytes:
        """The decoded body, read up to one byte past `cap` (so an oversized one shows)."""
        inflater = Inflater(response.headers.get("content-encoding", ""))
        chunks: list[bytes] = []
        size = 0
        async for raw in response.aiter_raw():
            piece = inflater.feed(raw, cap - size + 1)
            chunks.append(piece)
            size += len(piece)
            if size > cap:
                break
        return b"".join(chunks)

    def _headers(self, accept: str = ACCEPT) -> dict[str, str]:
        return {
            "User-Agent": self._settings.user_agent,
            "Accept": accept,
            "Accept-Encoding": "gzip, deflate",
        }


def _content_type(header: str) -> tuple[str, str | None]:
    mime, _, params = header.partition(";")
    charset = None
    for param in params.split(";"):
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset":
            charset = value.strip().strip("\"'") or None
    return mime.strip().lower(), charset


def _transport_reason(exc: httpx2.HTTPError) -> str:
    if isinstance(exc, httpx2.ConnectError):
        return f"connect failed: {exc}" if str(exc) else "connect failed"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _is_pdf(body: Body) -> bool:
    return settle_kind(kind_from_headers(body.mime, urlsplit(body.final_url).path), body) == "pdf"
