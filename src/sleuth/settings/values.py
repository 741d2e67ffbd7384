"""Values written as text: time spans, `since` dates, the API's `freshness`, and the coercion
of any setting's value (from a flag, a config file or a JSON field) by its kind in the table."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any, Literal

from ..errors import UsageError
from ..langtag import parse_tag
from ..limits import DEEP_ROUNDS
from .table import SETTINGS, Setting

# One spelling of time spans everywhere: ms, s, min, h, d, w, mo, y. A bare `m` once meant
# minutes in one flag and months in another; it still works with its old meaning and a note.
SPAN = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|sec|min|h|d|w|mo|y|m)?\s*$", re.IGNORECASE)
SECONDS_PER = {
    "ms": 0.001,
    "s": 1.0,
    "sec": 1.0,
    "min": 60.0,
    "h": 3600.0,
    "d": 86400.0,
    "w": 7 * 86400.0,
    "mo": 30 * 86400.0,
    "y": 365 * 86400.0,
}
YEAR = re.compile(r"^\s*(\d{4})\s*$")
FRESHNESS = {"pd": 1, "pw": 7, "pm": 31, "py": 365}
RANGE = re.compile(r"^(\d{4}-\d{2}-\d{2})to(\d{4}-\d{2}-\d{2})$")
MAX_SPAN_S = 200 * 365 * 86400.0  # far enough back for any publication date

Note = Callable[[str], None]


def _quiet(message: str) -> None:
    return None


def today() -> date:
    return datetime.now(UTC).date()


def parse_span(
    text: str, setting: str, *, bare: str, m_means: Literal["min", "mo"], note: Note = _quiet
) -> float:
    """Seconds in `text` (`90s`, `10min`, `6mo`); a number alone is in `bare` units."""
    match = SPAN.match(str(text))
    if not match:
        raise UsageError(
            f"{setting} takes a span like 30d, 12h, 90min, 2w, 6mo, 1y or 500ms, not {text!r}",
            setting=setting,
        )
    number, unit = float(match.group(1)), (match.group(2) or bare).lower()
    if unit == "m":
        unit = m_means
        word = "minutes" if m_means == "min" else "months"
        note(f"{setting}: read {text.strip()!r} as {word}; write {match.group(1)}{m_means}")
    seconds = number * SECONDS_PER[unit]
    if seconds > MAX_SPAN_S:
        raise UsageError(f"{setting}: {text!r} is longer than 200 years", setting=setting)
    return seconds


def parse_duration(text: str, setting: str = "max_runtime", note: Note = _quiet) -> float:
    """A positive run time in seconds: `90`, `90s`, `500ms`, `10min`, `1h`."""
    seconds = parse_span(text, setting, bare="s", m_means="min", note=note)
    if seconds <= 0:
        raise UsageError(f"{setting} must be positive", setting=setting)
    return seconds


def parse_age(text: str, setting: str = "older_than", note: Note = _quiet) -> timedelta:
    """An age back from now: `30d`, `12h`, `90min`, `2w`; a number alone is days."""
    return timedelta(seconds=parse_span(text, setting, bare="d", m_means="min", note=note))


def parse_since(
    text: str, now: date | None = None, setting: str = "since", note: Note = _quiet
) -> date:
    """A date (2024-01-31), a year (2024: its first day), or an age back from today (30d, 2w,
    6mo, 1y)."""
    now = now or today()
    if year := YEAR.match(str(text)):
        return date(int(year.group(1)), 1, 1)
    try:
        return date.fromisoformat(str(text).strip())
    except ValueError:
        pass
    if not SPAN.match(str(text)) or str(text).strip().isdigit():
        raise UsageError(
            f"{setting} takes a date (2024-01-31), a year (2024) or an age (30d, 2w, 6mo, 1y), "
            f"not {text!r}",
            setting=setting,
        )
    seconds = parse_span(text, setting, bare="d", m_means="mo", note=note)
    try:
        return now - timedelta(seconds=seconds)
    except OverflowError:
        raise UsageError(f"{setting}: {text!r} reaches before year 1", setting=setting) from None


def parse_freshness(value: str, now: date | None = None) -> date:
    """The API's `freshness`: pd, pw, pm, py, or YYYY-MM-DDtoYYYY-MM-DD (its earlier date: a
    range written end first means the same range)."""
    now = now or today()
    if value in FRESHNESS:
        return now - timedelta(days=FRESHNESS[value])
    match = RANGE.match(value.strip())
    if match:
        try:
            first, second = date.fromisoformat(match.group(1)), date.fromisoformat(match.group(2))
        except ValueError:
            pass
        else:
            return min(first, second)
    raise UsageError(
        f"freshness must be pd, pw, pm, py or YYYY-MM-DDtoYYYY-MM-DD, not {value!r}",
        setting="freshness",
    )


def coerce(name: str, value: Any, note: Note = _quiet) -> Any:
    """A setting's value as Sleuth uses it, from a flag, a config file, a variable or JSON;
    a bad value is a UsageError naming the setting."""
    entry = SETTINGS.get(name)
    if entry is None:
        raise UsageError(f"unknown setting {name!r}", setting=name)
    if value is None:
        return None
    return _COERCE[entry.kind](entry, value, note)


def _flag(s: Setting, value: Any, note: Note) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in TRUE | FALSE:
        return value.strip().lower() in TRUE
    raise UsageError(f"{s.name} must be true or false, not {value!r}", setting=s.name)


def _number(s: Setting, value: Any, note: Note) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise UsageError(f"{s.name} must be a number, not {value!r}", setting=s.name)
    try:
        number = float(value) if s.kind == "float" else int(str(value).strip())
    except ValueError:
        kind = "a number" if s.kind == "float" else "a whole number"
        raise UsageError(f"{s.name} must be {kind}, not {value!r}", setting=s.name) from None
    if not math.isfinite(number):
        raise UsageError(f"{s.name} must be a finite number, not {value!r}", setting=s.name)
    _check_range(s, number)
    return number


def _check_range(s: Setting, number: float) -> None:
    low, high = s.low, s.high
    if (low is not None and number < low) or (high is not None and number > high):
        span = (
            f"between {low:g} and {high:g}"
            if low is not None and high is not None
            else (f"at least {low:g}" if low is not None else f"at most {high:g}")
        )
        raise UsageError(f"{s.name} must be {span}, not {number:g}", setting=s.name)


MONEY = re.compile(r"^\s*\$?\s*(\d+(?:\.\d*)?|\.\d+)\s*$")


def _money(s: Setting, value: Any, note: Note) -> float:
    """US dollars: a number, or text like `0.50`, `$0.50`, `$ 0.50`. Another currency, a sign
    or anything else is refused rather than guessed at."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    else:
        match = MONEY.match(value) if isinstance(value, str) else None
        if match is None:
            raise UsageError(
                f"{s.name} must be an amount in US dollars like 0.50 or $0.50, not {value!r}",
                setting=s.name,
            )
        number = float(match.group(1))
    if not math.isfinite(number):
        raise UsageError(f"{s.name} must be a finite amount, not {value!r}", setting=s.name)
    _check_range(s, number)
    return number


def _choice(s: Setting, value: Any, note: Note) -> str:
    text = str(value).strip().lower()
    if text not in s.choices:
        raise UsageError(
            f"{s.name} must be one of {', '.join(s.choices)}, not {value!r}", setting=s.name
        )
    return text


def check_endpoint(url: str, setting: str = "base_url") -> str:
    """A model endpoint as every place that takes one checks it (the UI's Settings page, an
    organization's own model): an http:// or https:// URL naming a host, with no credentials
    in it (secrets never travel in URLs) and nothing after the path. Returns it trimmed."""
    from urllib.parse import urlsplit

    text = url.strip()
    if not text.startswith(("http://", "https://")):
        raise UsageError(f"{setting}: the LLM endpoint must be an http:// or https:// URL",
                         setting=setting)  # fmt: skip
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018  (a port that is not a number raises here)
    except ValueError:
        raise UsageError(f"{setting}: {text!r} is not a URL", setting=setting) from None
    if not parts.hostname or any(c.isspace() for c in text):
        raise UsageError(f"{setting}: {text!r} names no host", setting=setting)
    if parts.username is not None or parts.password is not None:
        raise UsageError(
            f"{setting}: the URL must not carry credentials; give the key on its own",
            setting=setting,
        )
    if parts.query or parts.fragment:
        raise UsageError(f"{setting}: the URL must end at its path (no ? or #)", setting=setting)
    return text


def _list(s: Setting, value: Any, note: Note) -> tuple[str, ...]:
    items = value if isinstance(value, list | tuple) else [value]
    out: list[str] = []
    for item in items:
        if isinstance(item, list | tuple):
            out.extend(_list(s, item, note))
            continue
        if not isinstance(item, str):
            raise UsageError(f"{s.name} takes text items, not {item!r}", setting=s.name)
        out.extend(p.strip() for p in item.split(",") if p.strip())
    return tuple(out)


def _text(s: Setting, value: Any, note: Note) -> str:
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise UsageError(f"{s.name} must be text, not {value!r}", setting=s.name)
    return str(value)


def _path(s: Setting, value: Any, note: Note) -> str:
    return os.fspath(value) if isinstance(value, os.PathLike) else _text(s, value, note)


def _duration(s: Setting, value: Any, note: Note) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        if not math.isfinite(value) or value <= 0:
            raise UsageError(f"{s.name} must be a positive number of seconds", setting=s.name)
        return float(value)
    return parse_duration(str(value), s.name, note)


def _since(s: Setting, value: Any, note: Note) -> date:
    if isinstance(value, date):
        return value
    return parse_since(str(value), setting=s.name, note=note)


def _lang(s: Setting, value: Any, note: Note) -> str:
    try:
        return str(parse_tag(_text(s, value, note)))
    except ValueError as exc:
        raise UsageError(f"{s.name} {exc}", setting=s.name) from None


def _rounds(s: Setting, value: Any, note: Note) -> int | None:
    if value is True:
        return DEEP_ROUNDS
    if value is False:  # explicitly quick (`deep = false`, an API's depth: quick)
        return None
    return int(_number(s, value, note))


TRUE = frozenset({"true", "1", "yes", "on"})
FALSE = frozenset({"false", "0", "no", "off", ""})
_COERCE: dict[str, Callable[[Setting, Any, Note], Any]] = {
    "flag": _flag,
    "text": _text,
    "path": _path,
    "int": lambda s, v, n: int(_number(s, v, n)),
    "float": _number,
    "choice": _choice,
    "list": _list,
    "duration": _duration,
    "since": _since,
    "rounds": _rounds,
    "lang": _lang,
    "money": _money,
}
