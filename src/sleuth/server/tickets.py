"""One-use tickets for `GET /api/sse/live`: a client that cannot send headers on its stream
(a browser's `EventSource`) first asks `POST /api/sse/ticket` with its credential in a header,
then opens the live URL with `ticket=`. No key or password ever travels in a URL, and a page
that embeds the live URL (`<img src=...>`) has no ticket to put in it.

A ticket is signed (HMAC-SHA256 with the server's `ticket_secret`, which the workers of one
server share), names the caller it was issued to, expires after `TTL_S`, and is refused the
second time this process sees it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets

from ..app.caller import Caller
from .config import Clock

TTL_S = 60.0


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Tickets:
    def __init__(self, secret: str, clock: Clock) -> None:
        self._key = hashlib.sha256(b"sleuth-sse-ticket:" + secret.encode()).digest()
        self.clock = clock
        self._used: dict[str, float] = {}

    def _sign(self, body: str) -> str:
        return _b64(hmac.new(self._key, body.encode(), hashlib.sha256).digest())

    def issue(self, caller: Caller) -> str:
        fields = {
            "org": caller.org, "scopes": list(caller.scopes), "plan": caller.plan,
            "key": caller.key_id, "how": caller.how, "exp": self.clock() + TTL_S,
            "nonce": secrets.token_hex(12),
        }  # fmt: skip
        body = _b64(json.dumps(fields, separators=(",", ":")).encode())
        return f"{body}.{self._sign(body)}"

    def redeem(self, ticket: str) -> Caller | None:
        """The caller a valid, unexpired ticket not seen before was issued to; else None."""
        body, _, signature = ticket.partition(".")
        if len(ticket) > 2000 or not hmac.compare_digest(signature, self._sign(body)):
            return None
        fields = json.loads(_unb64(body))
        now = self.clock()
        self._used = {n: exp for n, exp in self._used.items() if exp > now}
        if fields["exp"] <= now or fields["nonce"] in self._used:
            return None
        self._used[fields["nonce"]] = fields["exp"]
        return Caller(fields["org"], tuple(fields["scopes"]), fields["plan"], fields["key"],
                      fields["how"])  # fmt: skip
