"""`Idempotency-Key` on POST: a retry gets the first attempt's response (same status and body)
for 24 hours; a retry while the first is still running gets 409 (the SDK waits and retries);
the same key with another request gets 422.

What is replayed: successes, and refusals of the request itself that a retry would get again
(a 422 such as no sources found). What is not: answers that say "try again" (429, 503, 504,
retryable errors) and refusals made before any work (401, 402, 403, 404) — a retry of those
runs afresh, so the SDK's own retries with one key can succeed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import Request
from fastapi.responses import Response

from ..errors import SleuthError
from .errors import ApiError, from_sleuth
from .state import State

LEASE_S = 240.0  # a claim outlives the longest run (deep: 150 s) before another may take it
NOT_REPLAYED = frozenset({401, 402, 403, 404, 409, 429})
MAX_KEY = 255


def request_fingerprint(request: Request, payload: dict[str, Any]) -> str:
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(f"{request.method} {request.url.path} {text}".encode()).hexdigest()


async def idempotent(
    request: Request,
    state: State,
    org: str,
    payload: dict[str, Any],
    handler: Callable[[], Awaitable[Response]],
) -> Response:
    key = request.headers.get("idempotency-key")
    if key is None:
        return await handler()
    key = key.strip()
    if not key or len(key) > MAX_KEY:
        raise ApiError(
            400,
            "INVALID_REQUEST",
            f"Idempotency-Key must be 1 to {MAX_KEY} characters",
            extra={"field": "Idempotency-Key"},
        )
    store, now = state.store, state.clock()
    claim = await store.claim_key(
        org, key, request_fingerprint(request, payload), now=now, lease_s=LEASE_S
    )
    if claim.state == "running":
        raise ApiError(
            409,
            "IDEMPOTENCY_KEY_IN_PROGRESS",
            "a request with this Idempotency-Key is still running; retry shortly",
            retry_after=state.config.retry_after_s,
        )
    if claim.state == "reused":
        raise ApiError(
            422,
            "IDEMPOTENCY_KEY_REUSED",
            "this Idempotency-Key was used with a different request",
        )
    if claim.state == "done":
        headers = {"Idempotent-Replayed": "true"}
        return Response(claim.body, claim.status, headers, media_type="application/json")
    return await _first(state, org, key, handler)


async def _first(
    state: State, org: str, key: str, handler: Callable[[], Awaitable[Response]]
) -> Response:
    try:
        response: Response = await handler()
    except (ApiError, SleuthError) as exc:
        error = exc if isinstance(exc, ApiError) else from_sleuth(exc)
        response = error.response()
        if error.retryable or error.status in NOT_REPLAYED or error.status >= 500:
            await state.store.drop_key(org, key)
            return response
    except BaseException:
        await state.store.drop_key(org, key)
        raise
    ttl = state.config.idempotency_ttl_s
    await state.store.finish_key(
        org, key, response.status_code, bytes(response.body), now=state.clock(), ttl_s=ttl
    )
    return response
