"""A cached page as JSON, read the same way by the SQLite and the PostgreSQL page cache."""

from __future__ import annotations

import json
from dataclasses import fields

from ..types import Page, PageImage


def page_from_json(text: str) -> Page:
    """The page stored as `text`. Fields a newer or older Sleuth wrote are ignored: a cache
    entry must never break a run."""
    known = {f.name for f in fields(Page)}
    values = {k: v for k, v in json.loads(text).items() if k in known}
    values["images"] = tuple(PageImage(**image) for image in values.get("images", ()))
    return Page(**values)
