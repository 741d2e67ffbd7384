"""Exact JSON round trip of a Result, for saved sessions and JSON export.

`Result.to_json` is the public shape (DESIGN §1): it rounds scores and leaves out what a reader
of one answer does not need. A saved session must come back exactly as it was — full-precision
scores, each source's extracted text, the writer's name — so this codec writes the public shape
plus those fields, and reads either.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import asdict, fields
from typing import Any

from ..events import EVENT_TYPES, Event
from ..types import (
    Citation,
    Figure,
    ModelUsage,
    PageImage,
    Passage,
    Result,
    Source,
    SourceTrust,
    UnsupportedSentence,
    Usage,
    Verification,
)


def source_to_json(source: Source, with_text: bool = True) -> dict[str, Any]:
    data = source.to_json()
    data["score"] = source.score
    data["passages"] = [asdict(p) for p in source.passages]
    data["snippet"] = source.snippet
    data["published"] = source.published
    if with_text:
        data["text"] = source.text
        if source.images:  # what a steered or resumed run may still show beside its claims
            data["images"] = [asdict(i) for i in source.images]
    return data


def result_to_json(result: Result, with_text: bool = True) -> dict[str, Any]:
    """The public result shape with everything needed to rebuild `result` exactly."""
    data = result.to_json()
    data["answer"] = result.answer
    data["data"] = result.data
    data["sources"] = [source_to_json(s, with_text) for s in result.sources]
    data["verification"]["enabled"] = result.verification.enabled
    data["writer"] = result.writer
    if with_text:  # the checked bytes, so a report shows the image without asking its host
        for out, figure in zip(data["images"], result.images, strict=True):
            out["data"] = base64.b64encode(figure.data).decode("ascii")
    return data


def figure_from_json(data: dict[str, Any]) -> Figure:
    try:
        raw = base64.b64decode(data.get("data", ""), validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    return Figure(
        number=int(data["number"]),
        url=data["url"],
        alt=data.get("alt", ""),
        caption=data.get("caption", ""),
        sentence=data.get("sentence", ""),
        type=data.get("type", ""),
        data=raw,
    )


def source_from_json(data: dict[str, Any]) -> Source:
    return Source(
        number=int(data["number"]),
        url=data["url"],
        title=data["title"],
        score=float(data["score"]),
        passages=tuple(
            Passage(text=p["text"], score=float(p["score"]), start=int(p["start"]))
            for p in data.get("passages", ())
        ),
        fetched_at=data.get("fetched_at"),
        published=data.get("published"),
        snippet=bool(data.get("snippet", False)),
        authority=data.get("authority", "unknown"),
        text=data.get("text", ""),
        location=data.get("location"),
        images=tuple(
            PageImage(i["url"], i.get("alt", ""), i.get("caption", ""))
            for i in data.get("images", ())
        ),
    )


def _verification(data: dict[str, Any]) -> Verification:
    return Verification(
        checked=int(data["checked"]),
        supported=int(data["supported"]),
        unsupported=tuple(
            UnsupportedSentence(u["sentence"], tuple(u["numbers"]))
            for u in data.get("unsupported", ())
        ),
        enabled=bool(data.get("enabled", True)),
    )


def _usage(data: dict[str, Any]) -> Usage:
    by_model = data.get("llm", {}).get("by_model", {})
    return Usage(
        searches=int(data.get("searches", 0)),
        pages_read=int(data.get("pages_read", 0)),
        rounds=int(data.get("rounds", 1)),
        plan=data.get("plan", "single"),
        hops=int(data.get("hops", 0)),
        duration_ms=int(data.get("duration_ms", 0)),
        search_ms=int(data.get("search_ms", 0)),
        read_ms=int(data.get("read_ms", 0)),
        model_ms=int(data.get("model_ms", 0)),
        by_model={name: ModelUsage(**m) for name, m in by_model.items()},
    )


def result_from_json(data: dict[str, Any]) -> Result:
    """Rebuild a Result from `result_to_json` output (or, less exactly, from `Result.to_json`)."""
    trust = data.get("source_trust") or {"label": "mixed", "counts": {}}
    return Result(
        query=data["query"],
        answer=data.get("answer"),
        citations=tuple(Citation(**c) for c in data.get("citations", ())),
        sources=tuple(source_from_json(s) for s in data.get("sources", ())),
        queries=tuple(data.get("queries", ())),
        confidence=data.get("confidence", "low"),
        confidence_reasons=tuple(str(r) for r in data.get("confidence_reasons", ())),
        verification=_verification(data.get("verification") or {"checked": 0, "supported": 0}),
        source_trust=SourceTrust(trust["label"], dict(trust["counts"])),
        usage=_usage(data.get("usage") or {}),
        data=data.get("data"),
        cached=bool(data.get("cached", False)),
        session_id=data.get("session_id"),
        writer=data.get("writer", "extractive"),
        plan=tuple(data.get("plan", ())),
        rounds=tuple(data.get("rounds", ())),
        images=tuple(figure_from_json(f) for f in data.get("images", ())),
    )


# -- run events, for a run's shared log (a process that does not own a run follows it) ----------


def event_to_wire(event: Event) -> str:
    """An event as one JSON text that `event_from_wire` turns back into an equal event (a
    failure's exception object aside: its code, status and message travel)."""
    data: dict[str, Any] = {"kind": event.kind}
    for f in fields(event):
        value = getattr(event, f.name)
        if f.name == "exception":
            continue
        if isinstance(value, Result):
            value = result_to_json(value, with_text=False)
        elif f.name == "sources" and isinstance(value, tuple):
            value = [source_to_json(s, with_text=False) for s in value]
        data[f.name] = value
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


_BY_KIND: dict[str, type[Event]] = {cls.kind: cls for cls in EVENT_TYPES}


def event_from_wire(text: str) -> Event:
    data = json.loads(text)
    cls = _BY_KIND[data.pop("kind")]
    values: dict[str, Any] = {}
    for f in fields(cls):
        if f.name not in data:
            continue
        value = data[f.name]
        if f.name == "result":
            value = result_from_json(value)
        elif f.name == "sources" and isinstance(value, list):
            value = tuple(source_from_json(s) for s in value)
        elif isinstance(value, list):
            value = tuple(value)
        values[f.name] = value
    return cls(**values)
