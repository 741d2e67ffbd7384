"""Every error the API returns, in one shape: `{"success": false, "error", "code",
"retryable"}` (plus `queries` for a run stopped at its limit), with `Retry-After` where waiting
helps. FastAPI's own validation errors and Starlette's 404/405 are reshaped the same way, and an
unexpected exception becomes a 500 that names the request id — the traceback goes to the log,
never into a body.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import DeadlineExceeded, Refused, SleuthError, UsageError

log = logging.getLogger("sleuth.server")

# How the API names the settings an engine error may mention (the rest keep their names).
API_NAMES = {
    "question": "query",
    "allow_domain": "include_domains",
    "deny_domain": "exclude_domains",
    "since": "freshness",
    "deep": "depth",
}
_STATUS_CODES = {
    400: "INVALID_REQUEST",
    401: "UNAUTHORIZED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    406: "NOT_ACCEPTABLE",
    413: "PAYLOAD_TOO_LARGE",  # a chunked body found too large while read
    415: "UNSUPPORTED_MEDIA_TYPE",
}


class ApiError(Exception):
    """An error the API answers with on purpose: status, code, message, and whether (and after
    how long) the same request may succeed."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        retryable: bool = False,
        retry_after: float | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.retryable = retryable or retry_after is not None
        self.retry_after = retry_after
        self.extra = dict(extra or {})

    def response(self) -> JSONResponse:
        headers = {}
        if self.retry_after is not None:
            headers["Retry-After"] = str(max(1, math.ceil(self.retry_after)))
        body = error_body(self.code, self.message, self.retryable, **self.extra)
        return JSONResponse(body, status_code=self.status, headers=headers)


def error_body(code: str, message: str, retryable: bool = False, **extra: Any) -> dict[str, Any]:
    return {"success": False, "error": message, "code": code, "retryable": retryable, **extra}


def api_name(setting: str) -> str:
    return API_NAMES.get(setting, setting)


def from_sleuth(exc: SleuthError, queries: Sequence[str] = ()) -> ApiError:
    """An engine or application error as the API words it."""
    message = exc.worded(api_name)
    if isinstance(exc, DeadlineExceeded):
        queries = queries or exc.queries
        searched = f"; searched: {'; '.join(queries)}" if queries else ""
        return ApiError(
            504,
            "RUN_TIMEOUT",
            f"the run was stopped at its time limit{searched}",
            retryable=True,
            extra={"queries": list(queries)},
        )
    if isinstance(exc, Refused):
        return ApiError(exc.http_status, exc.code, message, retry_after=exc.retry_after)
    code = "INVALID_REQUEST" if type(exc) in (UsageError,) else exc.code
    return ApiError(exc.http_status, code, message, retryable=exc.retryable)


def _field(loc: Sequence[Any]) -> str:
    """`body.query` → `query`; `header.Idempotency-Key` → `Idempotency-Key`."""
    parts = [str(p) for p in loc]
    if parts and parts[0] in ("body", "query", "path", "header", "cookie"):
        parts = parts[1:]
    return ".".join(parts) or "body"


def respond(request: Request, error: ApiError) -> JSONResponse:
    """The error in the caller's dialect: the OpenAI error body on the OpenAI-compatible face
    (`/v1/...`: an SDK raises its usual exception), this API's own shape everywhere else."""
    if not request.url.path.startswith("/v1/"):
        return error.response()
    from .openai.wire import error_body as openai_error

    status, code, headers = error.status, error.code, _retry_headers(error)
    if status == 402:  # how OpenAI says a quota is spent: 429 that no client should retry
        status, code, headers = 429, "insufficient_quota", {"x-should-retry": "false"}
    body = openai_error(status, code, error.message, error.extra.get("field"))
    return JSONResponse(body, status_code=status, headers=headers)


def _retry_headers(error: ApiError) -> dict[str, str]:
    if error.retry_after is None:
        return {}
    return {"Retry-After": str(max(1, math.ceil(error.retry_after)))}


async def _on_api_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return respond(request, exc)


async def _on_sleuth_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, SleuthError)
    return respond(request, from_sleuth(exc))


async def _on_validation(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
    field = _field(first.get("loc", ()))
    message = str(first.get("msg", "invalid value")).removeprefix("Value error, ")
    if first.get("type") == "json_invalid":
        message, field = "the body is not valid JSON", "body"
    elif field == "body" and first.get("type") in ("model_attributes_type", "dict_type"):
        message = "the body must be a JSON object (sent as application/json)"
    error = ApiError(400, "INVALID_REQUEST", f"{field}: {message}", extra={"field": field})
    return respond(request, error)


async def _on_http(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = _STATUS_CODES.get(exc.status_code, "HTTP_ERROR")
    message = exc.detail if isinstance(exc.detail, str) else code.lower().replace("_", " ")
    error = ApiError(exc.status_code, code, message)
    response = respond(request, error)
    for name, value in (exc.headers or {}).items():
        response.headers[name] = value
    return response


async def _on_unexpected(request: Request, exc: Exception) -> JSONResponse:
    request_id = getattr(request.state, "request_id", "-")
    log.error("unhandled error (request %s)", request_id, exc_info=exc)
    message = f"internal error; quote request id {request_id} to the operator"
    response = respond(request, ApiError(500, "INTERNAL", message))
    response.headers["X-Request-ID"] = str(request_id)  # sent outside the request-id middleware
    return response


def _without_fastapi_422(app: FastAPI) -> None:
    """FastAPI documents a 422 "Validation Error" on every route with parameters; this API
    answers validation errors with 400 (documented per route), so that 422 is dropped. A 422
    the API does return (NO_SOURCES...) is documented by the route and kept."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = build()
            for operations in schema.get("paths", {}).values():
                for operation in operations.values():
                    responses = operation.get("responses", {})
                    if responses.get("422", {}).get("description") == "Validation Error":
                        del responses["422"]
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def install(app: FastAPI) -> None:
    _without_fastapi_422(app)
    app.add_exception_handler(ApiError, _on_api_error)
    app.add_exception_handler(SleuthError, _on_sleuth_error)
    app.add_exception_handler(RequestValidationError, _on_validation)
    app.add_exception_handler(StarletteHTTPException, _on_http)
    app.add_exception_handler(Exception, _on_unexpected)
