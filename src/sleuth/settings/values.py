"""Recency filters: `--since 2024-01-01` / `--since 30d` and the API's `freshness` values."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

from ..errors import UsageError

DURATION = re.compile(r"^\s*(\d+)\s*([dwmy])\s*$", re.IGNORECASE)
DAYS_PER = {"d": 1, "w": 7, "m": 30, "y": 365}
FRESHNESS = {"pd": 1, "pw": 7, "pm": 31, "py": 365}
RANGE = re.compile(r"^(\d{4}-\d{2}-\d{2})to(\d{4}-\d{2}-\d{2})$")


def today() -> date:
    return datetime.now(UTC).date()


def parse_since(text: str, now: date | None = None) -> date:
    """An absolute date (YYYY-MM-DD) or a duration back from today (30d, 2w, 6m, 1y)."""
    now = now or today()
    match = DURATION.match(text)
    if match:
        return now - timedelta(days=int(match.group(1)) * DAYS_PER[match.group(2).lower()])
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise UsageError(
            f"--since takes a date (2024-01-31) or a duration (30d, 2w, 6m, 1y), not {text!r}"
        ) from None


def parse_freshness(value: str, now: date | None = None) -> date:
    """The API's `freshness`: pd, pw, pm, py, or YYYY-MM-DDtoYYYY-MM-DD (its start date)."""
    now = now or today()
    if value in FRESHNESS:
        return now - timedelta(days=FRESHNESS[value])
    match = RANGE.match(value.strip())
    if match:
        try:
            start, end = date.fromisoformat(match.group(1)), date.fromisoformat(match.group(2))
        except ValueError:
            pass
        else:
            if start <= end:
                return start
    raise UsageError(f"freshness must be pd, pw, pm, py or YYYY-MM-DDtoYYYY-MM-DD, not {value!r}")
