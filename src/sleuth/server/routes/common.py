"""What every route shares: the documented error responses."""

from __future__ import annotations

from typing import Any

from ..models import ErrorBody

_MEANING = {
    400: "Invalid request: the `field` names what is wrong.",
    401: "No API key, or one that is not valid.",
    402: "QUOTA_EXCEEDED: the organization's monthly quota is used up.",
    403: "SCOPE_REQUIRED: the key lacks the scope this route needs.",
    404: "Not found (also: an organization or id that is not the caller's).",
    409: "IDEMPOTENCY_KEY_IN_PROGRESS: the first request with this key is still running.",
    413: "The body is larger than 1 MB.",
    422: "IDEMPOTENCY_KEY_REUSED, the run found no sources (NO_SOURCES), or an uploaded file "
    "cannot be read (UNREADABLE_FILE).",
    429: "RATE_LIMITED: the organization's request rate or running-run limit (Retry-After).",
    500: "An internal error; the body names the request id.",
    502: "A search backend or the model endpoint failed.",
    503: "SERVER_BUSY (every run slot taken; Retry-After) or LLM_NOT_CONFIGURED.",
    504: "RUN_TIMEOUT: the run reached its time limit; `queries` lists what it searched.",
}
READ_ERRORS = (400, 401, 404, 429, 500)  # 400: a query parameter out of range
POST_ERRORS = (400, 401, 402, 403, 404, 409, 413, 422, 429, 500, 502, 503, 504)


def documented(*statuses: int) -> dict[int | str, dict[str, Any]]:
    return {s: {"model": ErrorBody, "description": _MEANING[s]} for s in statuses}
