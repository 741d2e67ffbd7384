"""What a saved session is: the record of one run, and the summaries the store answers with."""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from ..types import ModelUsage, Result

ID_TIME_FORMAT = "%Y-%m-%d_%H%M%S"


def new_session_id(now: datetime | None = None) -> str:
    """`YYYY-MM-DD_HHMMSS_<8hex>` in UTC: ids sort by time and a prefix names a day or a run."""
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    return f"{moment.strftime(ID_TIME_FORMAT)}_{secrets.token_hex(4)}"


def iso_utc(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def parse_iso(text: str) -> datetime:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def normalize_tags(tags: str | Iterable[str]) -> tuple[str, ...]:
    """Tags lower-cased, without a leading `#`, split on commas, de-duplicated in order."""
    parts = tags.split(",") if isinstance(tags, str) else [p for t in tags for p in t.split(",")]
    cleaned = (p.strip().lstrip("#").strip().lower() for p in parts)
    return tuple(dict.fromkeys(t for t in cleaned if t))


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """Everything one run saw and produced. `result.sources` carry their extracted text."""

    id: str
    created_at: str  # ISO 8601 UTC
    question: str
    result: Result
    options: dict[str, Any] = field(default_factory=dict)
    plan: tuple[str, ...] = ()  # the planned sub-queries of a deep run
    rounds: tuple[dict[str, Any], ...] = ()  # the round trace: queries, kept, gaps...
    tags: tuple[str, ...] = ()
    parent_id: str | None = None
    models: tuple[str, ...] = ()  # models that wrote, planned or criticized, in call order
    org: str | None = None  # the organization whose API key ran it (None: a local run)

    @classmethod
    def new(
        cls,
        question: str,
        result: Result,
        *,
        options: Mapping[str, Any] | None = None,
        plan: Iterable[str] = (),
        rounds: Iterable[Mapping[str, Any]] = (),
        tags: Iterable[str] = (),
        parent_id: str | None = None,
        models: Iterable[str] = (),
        now: datetime | None = None,
        org: str | None = None,
    ) -> SessionRecord:
        """A record with a fresh id; the result is stamped with that id."""
        moment = now or datetime.now(UTC)
        session_id = new_session_id(moment)
        return cls(
            id=session_id,
            created_at=iso_utc(moment),
            question=question,
            result=replace(result, session_id=session_id),
            options=dict(options or {}),
            plan=tuple(plan),
            rounds=tuple(dict(r) for r in rounds),
            tags=tuple(sorted(normalize_tags(tags))),
            parent_id=parent_id,
            models=tuple(models) or tuple(result.usage.by_model),
            org=org,
        )

    @property
    def depth(self) -> str:
        return str(self.options.get("depth", "quick"))

    @property
    def model(self) -> str:
        """The writing model's name, or the writer kind when no model wrote."""
        return self.models[-1] if self.models else self.result.writer


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """One row of a listing: enough to choose a session without loading its sources."""

    id: str
    created_at: str
    question: str
    tags: tuple[str, ...]
    sources: int
    rounds: int
    cost_usd: float | None
    parent_id: str | None
    models: tuple[str, ...]
    org: str | None = None
    confidence: str | None = None  # high|medium|low (None: saved before it was recorded)
    stage: str | None = None  # a steered run's stage (clarify|plan|explore|done), else None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "created_at": self.created_at,
            "question": self.question,
            "tags": list(self.tags),
            "sources": self.sources,
            "rounds": self.rounds,
            "cost_usd": self.cost_usd,
            "parent_id": self.parent_id,
            "models": list(self.models),
            "org": self.org,
            "confidence": self.confidence,
            "stage": self.stage,
        }


@dataclass(frozen=True, slots=True)
class SessionStats:
    sessions: int
    cost_usd: float
    sources: int
    rounds: int
    first: str | None
    last: str | None
    by_model: dict[str, ModelUsage]

    def to_json(self) -> dict[str, Any]:
        return {
            "sessions": self.sessions,
            "cost_usd": round(self.cost_usd, 6),
            "sources": self.sources,
            "rounds": self.rounds,
            "first": self.first,
            "last": self.last,
            "by_model": {
                name: {
                    "calls": m.calls,
                    "input_tokens": m.input_tokens,
                    "output_tokens": m.output_tokens,
                    "cost_usd": m.cost_usd,
                }
                for name, m in self.by_model.items()
            },
        }


@dataclass(frozen=True, slots=True)
class Revision:
    """An edited answer of a session: its number (from 1), when, a note on how it was made,
    the text, and the citation check of that text as JSON."""

    number: int
    created_at: str
    note: str
    answer: str
    verification: dict[str, Any]
