"""Tolerant parsing of what models say when asked for a plan or a critic's verdict.

Models without a JSON mode answer in many shapes: a bare JSON array, an object with a list
field, JSON inside a ```json fence or after a sentence of preamble, or numbered/bulleted lines.
All are accepted. Reasoning blocks are stripped first.

Choice for garbage: a verdict that cannot be read says *complete, nothing missing*. An unreadable
critic then ends the deep loop instead of sending it round again on nothing, so a run always
finishes with the answer it has. An unreadable plan gives an empty list; the caller falls back
to searching the question itself.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .thinking import strip_reasoning_text

_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.DOTALL)
_QUERY_LABEL = re.compile(r"^\s*(?:(?:search\s+)?query\s*:\s*)", re.IGNORECASE)
_MARKED_LINE = re.compile(r"^\s*(?:\d{1,2}[.)]|[-*•+]|\(\d{1,2}\))\s+(.+?)\s*$")
_LIST_KEYS = (
    "queries",
    "sub_queries",
    "subqueries",
    "search_queries",
    "searches",
    "questions",
    "items",
    "list",
    "plan",
    "steps",
)
_QUERY_KEYS = (
    "queries",
    "follow_up_queries",
    "followup_queries",
    "search_queries",
    "searches",
    "next_queries",
)
_MISSING_KEYS = ("missing", "gaps", "missing_information", "missing_facts")
_COMPLETE_KEYS = ("complete", "is_complete", "done", "sufficient", "enough")
_MAX_ITEM = 300


@dataclass(frozen=True, slots=True)
class Verdict:
    complete: bool
    missing: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)


def parse_list(text: str) -> list[str]:
    """Items of a list the model was asked for; [] when nothing list-like is found."""
    text = strip_reasoning_text(text)
    data = _find_json(text)
    if data is not None:
        items = _list_from_json(data)
        if items:
            return items
    return _clean([m.group(1) for line in text.splitlines() if (m := _MARKED_LINE.match(line))])


def parse_query(text: str) -> str:
    """The one query a model was asked for: a list's first item, else its first line without
    a "Query:" label or quotes; "" when the reply holds none."""
    listed = parse_list(text)
    if listed:
        return listed[0]
    for line in strip_reasoning_text(text).splitlines():
        found = _clean([_QUERY_LABEL.sub("", line)])
        if found:
            return found[0]
    return ""


def parse_verdict(text: str) -> Verdict:
    """A critic's verdict; unreadable text counts as complete (see the module docstring)."""
    text = strip_reasoning_text(text)
    data = _find_json(text)
    if isinstance(data, dict):
        return _verdict_from_json(data)
    if isinstance(data, list):
        queries = _clean(data)
        return Verdict(complete=not queries, queries=queries)
    return _verdict_from_lines(text)


def _find_json(text: str) -> Any:
    """The first JSON value in a fence, the whole text, or the first {...}/[...] span."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for candidate in candidates:
        value = _loads(candidate.strip())
        if value is not None:
            return value
    for opener, closer in (("{", "}"), ("[", "]")):
        start, end = text.find(opener), text.rfind(closer)
        if 0 <= start < end:
            value = _loads(text[start : end + 1])
            if value is not None:
                return value
    return None


def _loads(text: str) -> Any:
    if not text or text[0] not in "[{":
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _list_from_json(data: Any) -> list[str]:
    if isinstance(data, list):
        return _clean(data)
    if not isinstance(data, dict):
        return []
    for key in _LIST_KEYS:
        if isinstance(data.get(key), list):
            return _clean(data[key])
    lists = [v for v in data.values() if isinstance(v, list)]
    return _clean(lists[0]) if lists else []


def _clean(items: list[Any]) -> list[str]:
    """Strings (or {"query": ...} objects) trimmed of quotes, deduplicated, order kept."""
    out: list[str] = []
    for item in items:
        if isinstance(item, dict):
            item = item.get("query") or item.get("text") or item.get("q")
        if not isinstance(item, str):
            continue
        value = item.strip().strip("\"'`").strip()
        if value and len(value) <= _MAX_ITEM and value not in out:
            out.append(value)
    return out


def _verdict_from_json(data: dict[str, Any]) -> Verdict:
    queries = _first_list(data, _QUERY_KEYS)
    missing = _first_list(data, _MISSING_KEYS)
    flag = next((data[k] for k in _COMPLETE_KEYS if k in data), None)
    complete = _truthy(flag) if flag is not None else not (queries or missing)
    return Verdict(complete=complete, missing=missing, queries=[] if complete else queries)


def _first_list(data: dict[str, Any], keys: tuple[str, ...]) -> list[str]:
    for key in keys:
        value = data.get(key)
        if isinstance(value, list):
            return _clean(value)
        if isinstance(value, str) and value.strip():
            return _clean([value])
    return []


def _truthy(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in {"true", "yes", "y", "complete", "done", "1"}
    return bool(value)


def _verdict_from_lines(text: str) -> Verdict:
    """`COMPLETE`, or `Missing: ...` / `Queries:` followed by numbered or bulleted lines."""
    queries = parse_list(_section(text, ("queries", "searches", "search", "follow", "next")) or "")
    missing = parse_list(_section(text, ("missing", "gaps")) or "")
    if not queries and _INCOMPLETE.search(text):
        queries = parse_list(text)
    if queries:
        return Verdict(complete=False, missing=missing, queries=queries)
    return Verdict(complete=True, missing=missing)


_INCOMPLETE = re.compile(r"\b(incomplete|not complete|missing|gaps?)\b", re.IGNORECASE)


def _section(text: str, names: tuple[str, ...]) -> str | None:
    """The lines after a heading like `Queries:` or `## Missing`, up to the next heading."""
    pattern = r"^[#*\s]*(?:" + "|".join(names) + r")[\w -]*:?\**\s*$"
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.match(pattern, line, re.IGNORECASE):
            body = []
            for follow in lines[i + 1 :]:
                if re.match(r"^[#*\s]*\w[\w ]*:\**\s*$", follow) and not _MARKED_LINE.match(follow):
                    break
                body.append(follow)
            return "\n".join(body)
    return None


def parse_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in a model's reply (bare, fenced or after preamble), else None."""
    data = _find_json(strip_reasoning_text(text))
    return data if isinstance(data, dict) else None
