from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sleuth.llm.keys import KeyRing, split_keys
from sleuth.llm.retry import Failure, RetryPolicy, error_detail, parse_retry_after

NOW = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after": "7"}, 7.0),
        ({"retry-after": "1.5"}, 1.5),
        ({"retry-after": "Wed, 01 Jan 2025 12:00:30 GMT"}, 30.0),
        ({"retry-after": "Wed, 01 Jan 2025 11:00:00 GMT"}, 0.0),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after": "soon"}, None),
        ({}, None),
    ],
)
def test_parse_retry_after(headers: dict[str, str], seconds: float | None) -> None:
    assert parse_retry_after(headers, now=NOW) == seconds


def test_backoff_grows_and_is_capped() -> None:
    policy = RetryPolicy(base_s=0.5, max_s=3.0)
    assert 0.25 <= policy.backoff(0) <= 0.5
    assert 1.0 <= policy.backoff(2) <= 2.0
    assert 1.5 <= policy.backoff(10) <= 3.0


@pytest.mark.parametrize(
    ("status", "retryable"),
    [
        (None, True),
        (408, True),
        (429, True),
        (500, True),
        (529, True),
        (400, False),
        (401, False),
        (403, False),
        (404, False),
        (422, False),
    ],
)
def test_which_failures_are_retried(status: int | None, retryable: bool) -> None:
    assert Failure(status, "x").retryable is retryable


def test_error_detail_reads_both_wire_formats() -> None:
    assert error_detail({"error": {"message": "Bad key"}}, "fallback") == "Bad key"
    assert error_detail({"type": "error", "error": {"message": "Overloaded"}}, "f") == "Overloaded"
    assert error_detail({"detail": "nope"}, "Error code: 500") == "Error code: 500"
    assert error_detail("not json", "Error code: 502") == "Error code: 502"


def test_split_keys() -> None:
    assert split_keys(" k1, k2,,k1 ,k3") == ("k1", "k2", "k3")
    assert split_keys(None) == ()


def test_key_ring_rotates_and_skips_rejected_keys() -> None:
    ring = KeyRing(("a", "b", "c"))
    assert [ring.next() for _ in range(4)] == ["a", "b", "c", "a"]
    ring.reject("c")
    assert [ring.next() for _ in range(4)] == ["b", "a", "b", "a"]
    assert ring.live == 2
