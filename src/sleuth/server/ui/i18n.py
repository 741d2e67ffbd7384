"""Message catalogs: one JSON file per language in `i18n/`, keyed alike. Templates call
`t("key")`; a key missing from the catalog of the page's language is an error in tests
(`tests/server/ui/test_i18n.py`) and, if one slips through, shows the English text."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import datetime
from functools import cache
from importlib import resources
from types import MappingProxyType

LANGUAGES: Mapping[str, str] = MappingProxyType(
    {"en": "English", "zh-Hans": "简体中文", "es": "Español"}
)
DEFAULT = "en"
Translate = Callable[[str], str]


@cache
def catalog(lang: str) -> Mapping[str, str]:
    if lang not in LANGUAGES:
        raise KeyError(f"no catalog for language {lang!r}")
    text = resources.files(__package__).joinpath("i18n", f"{lang}.json").read_text("utf-8")
    messages = json.loads(text)
    if not isinstance(messages, dict) or not all(isinstance(v, str) for v in messages.values()):
        raise ValueError(f"i18n/{lang}.json must map keys to strings")
    return MappingProxyType(messages)


def translator(lang: str) -> Translate:
    own, english = catalog(lang), catalog(DEFAULT)

    def t(key: str) -> str:
        return own.get(key) or english.get(key, key)

    return t


def pick(cookie: str | None, accept_language: str) -> str:
    """The language a person chose (cookie), else the first of their browser's we have."""
    if cookie is not None and cookie in LANGUAGES:
        return cookie
    for part in accept_language.split(","):
        tag = part.split(";")[0].strip().lower()
        if tag.startswith("zh"):
            return "zh-Hans"
        if tag[:2] in LANGUAGES:
            return tag[:2]
    return DEFAULT


def moment(iso: str, t: Translate) -> str:
    """A stored time (ISO 8601, in UTC) written as the reader's language writes a date and a
    time: `3 Dec 2026, 08:49 UTC`, `2026年12月3日 08:49（UTC）`. Text that is not a time is
    shown as it is."""
    try:
        at = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    months = t("time.months").split()
    month = months[at.month - 1] if len(months) == 12 else str(at.month)
    return t("time.format").format(year=at.year, month=month, day=at.day, time=f"{at:%H:%M}")


NOTES = {"edited": "revision.edited", "translated": "revision.translated"}


def note(text: str, t: Translate) -> str:
    """A revision's note: the UI's own default words translated, a person's note as typed."""
    key = NOTES.get(text.strip().lower())
    return t(key) if key else text
