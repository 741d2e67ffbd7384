"""Webhook calls, signed and guarded like page reads.

A webhook's URL is the operator's input, but where it points matters as much as a page's: it
passes the same SSRF guard (no private, local or metadata address unless the operator allows
private networks with SLEUTH_ALLOW_PRIVATE_NETWORK=1), redirects are not followed, and the
address actually reached is checked again (DNS rebinding).

Each call is a JSON POST signed with the watch's secret, the way Stripe and GitHub sign theirs:

    X-Sleuth-Event:      watch.changed
    X-Sleuth-Delivery:   a UUID, the same on every retry of one delivery
    X-Sleuth-Timestamp:  Unix seconds when this attempt was signed
    X-Sleuth-Signature:  sha256=<hex HMAC-SHA256 over "<timestamp>." + body, key = the secret>

A receiver recomputes the HMAC over the raw body, compares in constant time, and rejects old
timestamps (replays). A failed attempt (no connection, a 5xx or 429) is retried twice.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import httpx2

from ..errors import BlockedURLError, FetchError
from .guard import GuardPolicy, check_url, is_blocked_address
from .tls import tls_context

EVENT, DELIVERY = "X-Sleuth-Event", "X-Sleuth-Delivery"
TIMESTAMP, SIGNATURE = "X-Sleuth-Timestamp", "X-Sleuth-Signature"
WAITS_S = (1.0, 4.0)  # before the second and third attempts
TIMEOUT_S = 10.0


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The X-Sleuth-Signature value of `body` sent at `timestamp`."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"sha256={mac.hexdigest()}"


def signed_correctly(secret: str, timestamp: str, body: bytes, signature: str) -> bool:
    """What a receiver checks (used by the tests; a receiver in Python can copy it)."""
    try:
        expected = sign(secret, int(timestamp), body)
    except ValueError:
        return False
    return hmac.compare_digest(expected, signature)


@dataclass(frozen=True, slots=True)
class Delivery:
    ok: bool
    attempts: int
    detail: str  # "HTTP 200", "refused: private or local address …", "HTTP 500", "timeout"

    def __str__(self) -> str:
        return f"{'delivered' if self.ok else 'failed'}: {self.detail} ({self.attempts} attempts)"


class Webhooks:
    """Signed POSTs over one client that follows no redirect."""

    def __init__(
        self,
        *,
        allow_private: bool,
        waits_s: Sequence[float] = WAITS_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.allow_private, self.waits_s, self.clock = allow_private, tuple(waits_s), clock
        self._client = httpx2.AsyncClient(
            trust_env=True, follow_redirects=False, timeout=TIMEOUT_S, verify=tls_context()
        )

    async def aclose(self) -> None:
        await self._client.aclose()

    async def post(self, url: str, body: bytes, secret: str, event: str) -> Delivery:
        delivery = str(uuid.uuid4())
        detail = ""
        for attempt, wait in enumerate((0.0, *self.waits_s), start=1):
            await asyncio.sleep(wait)
            try:
                status = await self._attempt(url, body, secret, event, delivery)
            except BlockedURLError as exc:
                return Delivery(False, attempt, f"refused: {exc.reason}")
            except (httpx2.HTTPError, FetchError) as exc:
                detail = f"no answer: {exc or type(exc).__name__}"
                continue
            if 200 <= status < 300:
                return Delivery(True, attempt, f"HTTP {status}")
            detail = f"HTTP {status}"
            if status < 500 and status != 429:
                return Delivery(False, attempt, detail)
        return Delivery(False, 1 + len(self.waits_s), detail)

    async def _attempt(self, url: str, body: bytes, secret: str, event: str, delivery: str) -> int:
        proxied = self._proxied(url)
        await check_url(url, GuardPolicy(self.allow_private, proxied))
        stamp = int(self.clock())
        headers = {
            "Content-Type": "application/json",
            "User-Agent": "Sleuth-Webhook/1",
            EVENT: event,
            DELIVERY: delivery,
            TIMESTAMP: str(stamp),
            SIGNATURE: sign(secret, stamp, body),
        }
        async with self._client.stream("POST", url, content=body, headers=headers) as response:
            if not (self.allow_private or proxied):
                _check_peer(response, url)
            return response.status_code

    def _proxied(self, url: str) -> bool:
        try:
            transport = self._client._transport_for_url(httpx2.URL(url))
        except httpx2.InvalidURL:
            return False  # the guard refuses it with the reason
        return transport is not self._client._transport


def _check_peer(response: httpx2.Response, url: str) -> None:
    """The address reached must be public too: a name may resolve elsewhere at connect time."""
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
