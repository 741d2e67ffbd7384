from datetime import date

import pytest

from sleuth.errors import UsageError
from sleuth.settings.values import parse_freshness, parse_since

TODAY = date(2026, 11, 30)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("30d", date(2026, 10, 31)),
        ("2w", date(2026, 11, 16)),
        ("1y", date(2025, 11, 30)),
        ("6m", date(2026, 6, 3)),
        ("2024-01-31", date(2024, 1, 31)),
    ],
)
def test_since(text: str, expected: date) -> None:
    assert parse_since(text, TODAY) == expected


@pytest.mark.parametrize("text", ["yesterday", "30x", "2024-13-01", "-5d", ""])
def test_bad_since(text: str) -> None:
    with pytest.raises(UsageError, match="since takes a date"):
        parse_since(text, TODAY)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("pd", date(2026, 11, 29)),
        ("pw", date(2026, 11, 23)),
        ("pm", date(2026, 10, 30)),
        ("py", date(2025, 11, 30)),
        ("2024-01-01to2024-06-30", date(2024, 1, 1)),
        ("2024-06-30to2024-01-01", date(2024, 1, 1)),  # end first: the same range
    ],
)
def test_freshness(value: str, expected: date) -> None:
    assert parse_freshness(value, TODAY) == expected


@pytest.mark.parametrize("value", ["pz", "2024-02-30to2024-03-01", "2024-01-01to"])
def test_bad_freshness(value: str) -> None:
    with pytest.raises(UsageError, match="freshness"):
        parse_freshness(value, TODAY)
