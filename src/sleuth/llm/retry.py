"""Retries for model calls that stream.

A call is retried on 429, 5xx, timeouts and connection errors only while nothing has been
streamed yet: once a delta reached the caller, a retry would repeat text, so a broken stream is
an LLMError instead. `Retry-After` (seconds or an HTTP date; OpenAI's `retry-after-ms` too) is
used as the wait when the server sends it. Refusals (400/401/403/404...) fail at once with one
clear line; a 401 drops the key from the ring and moves on to the next key if there is one.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from contextlib import aclosing
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TypeVar

from ..errors import LLMError, SleuthError
from .keys import KeyRing

T = TypeVar("T")

_RETRY_STATUSES = frozenset({408, 409, 429})


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    attempts: int = 4
    base_s: float = 0.5
    max_s: float = 20.0
    # Injected so tests can record waits instead of sleeping through them.
    sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep, compare=False)

    def backoff(self, attempt: int) -> float:
        """Exponential backoff with jitter, so clients that failed together retry apart."""
        ceiling = min(self.max_s, self.base_s * (2**attempt))
        return float(ceiling * (0.5 + random.random() / 2))


@dataclass(frozen=True, slots=True)
class Failure:
    """What a provider's error means for retrying, independent of the SDK that raised it."""

    status: int | None  # HTTP status; None for timeouts and connection errors
    detail: str
    retry_after_s: float | None = None

    @property
    def retryable(self) -> bool:
        return self.status is None or self.status in _RETRY_STATUSES or self.status >= 500

    def describe(self) -> str:
        return f"{self.status} {self.detail}" if self.status is not None else self.detail


Classifier = Callable[[BaseException], Failure | None]


def parse_retry_after(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """Seconds to wait from `retry-after-ms` or `Retry-After` (delta seconds or HTTP date)."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def error_detail(body: object, fallback: str) -> str:
    """The human part of an API error body ({"error": {"message": ...}} in both wire formats)."""
    message = fallback
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
            message = inner["message"]
        elif isinstance(inner, str):
            message = inner
    return " ".join(message.split())[:200] or fallback


async def retrying(
    open_stream: Callable[[str], AsyncGenerator[T, None]],
    *,
    ring: KeyRing,
    policy: RetryPolicy,
    classify: Classifier,
) -> AsyncGenerator[T, None]:
    """Items of `open_stream(key)`, retried per `policy` until the first item arrives. The
    error that ends a call never carries an API key the endpoint echoed back."""
    try:
        async with aclosing(_attempts(open_stream, ring, policy, classify)) as items:
            async for item in items:
                yield item
    except LLMError as exc:
        exc.args = tuple(ring.redact(str(a)) for a in exc.args)
        raise


async def _attempts(
    open_stream: Callable[[str], AsyncGenerator[T, None]],
    ring: KeyRing,
    policy: RetryPolicy,
    classify: Classifier,
) -> AsyncGenerator[T, None]:
    for attempt in range(policy.attempts):
        key = ring.next()
        started = False
        try:
            async with aclosing(open_stream(key)) as items:
                async for item in items:
                    started = True
                    yield item
            return
        except SleuthError:
            raise
        except Exception as exc:
            failure = _classified(classify, exc)
            if started:
                raise LLMError(
                    f"LLM stream broke after text was sent: {failure.describe()}"
                ) from exc
            wait = _wait_before_retry(failure, ring, key, policy, attempt)
        await policy.sleep(wait)


def _classified(classify: Classifier, exc: Exception) -> Failure:
    """The provider's reading of `exc`; anything it does not know ends the call as an LLMError."""
    failure = classify(exc)
    if failure is None:
        raise LLMError(f"LLM call failed: {type(exc).__name__}: {exc}") from exc
    return failure


def _wait_before_retry(
    failure: Failure, ring: KeyRing, key: str, policy: RetryPolicy, attempt: int
) -> float:
    """Seconds to wait before the next attempt, or raise the LLMError that ends the call."""
    if failure.status == 401:
        ring.reject(key)
        if ring.live and attempt + 1 < policy.attempts:
            return 0.0
    if not failure.retryable:
        raise _refused(failure)
    if attempt + 1 >= policy.attempts:
        raise LLMError(
            f"LLM endpoint failed after {policy.attempts} attempts: {failure.describe()}"
        )
    if failure.retry_after_s is None:
        return policy.backoff(attempt)
    if failure.retry_after_s > policy.max_s:
        raise LLMError(
            f"LLM endpoint is rate-limiting: asked to wait {failure.retry_after_s:.0f}s "
            f"(more than the {policy.max_s:.0f}s retry limit): {failure.describe()}"
        )
    return failure.retry_after_s


def _refused(failure: Failure) -> LLMError:
    err = LLMError(f"LLM endpoint refused: {failure.describe()}")
    err.retryable = False  # the same request will be refused again
    return err
