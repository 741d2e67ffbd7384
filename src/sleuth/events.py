"""Run events: the one typed stream every interface consumes.

The engine yields these in order and ends with `Done` (carrying the result) or `Failed`.
The CLI progress line, `--verbose`, and later the SSE API and MCP progress are all readers of
this stream; none of them reach into the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from .errors import SleuthError
from .types import Result, Source


@dataclass(frozen=True, slots=True)
class Event:
    kind: ClassVar[str] = "event"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.kind}
        for f in fields(self):
            value = getattr(self, f.name)
            data[f.name] = value.to_json() if hasattr(value, "to_json") else value
        return data

    def describe(self) -> str:
        """One human line for --verbose."""
        parts = [f"{k}={v!r}" for k, v in self.to_json().items() if k != "type"]
        return f"{self.kind} " + " ".join(parts)


@dataclass(frozen=True, slots=True)
class Planned(Event):
    kind: ClassVar[str] = "plan"
    queries: tuple[str, ...]
    plan: str = "single"
    round: int = 1


@dataclass(frozen=True, slots=True)
class Notice(Event):
    """Something a user should see even without --verbose (fallback used, no LLM, ...)."""

    kind: ClassVar[str] = "notice"
    message: str


@dataclass(frozen=True, slots=True)
class Searched(Event):
    kind: ClassVar[str] = "search.done"
    query: str
    backend: str
    results: int
    ms: int


@dataclass(frozen=True, slots=True)
class SearchDegraded(Event):
    kind: ClassVar[str] = "search.degraded"
    backend: str
    error: str


@dataclass(frozen=True, slots=True)
class Fetched(Event):
    kind: ClassVar[str] = "fetch.done"
    url: str
    chars: int
    ms: int
    cached: bool = False


@dataclass(frozen=True, slots=True)
class FetchSkipped(Event):
    kind: ClassVar[str] = "fetch.skipped"
    url: str
    reason: str
    # Why, as a stable code a program can branch on: the FetchError subclass's `code`
    # (FETCH_FAILED, BLOCKED_URL, TOO_LARGE, EXTRACTION_FAILED), NOT_READ_IN_TIME or STALE.
    code: str = "FETCH_FAILED"


@dataclass(frozen=True, slots=True)
class NearDuplicate(Event):
    """A page dropped because its text nearly repeats a page already kept (syndicated copy)."""

    kind: ClassVar[str] = "near-duplicate"
    url: str
    duplicate_of: str


@dataclass(frozen=True, slots=True)
class PassagesKept(Event):
    kind: ClassVar[str] = "passages.kept"
    sources: int
    passages: int
    snippets: int  # how many sources are search snippets only


@dataclass(frozen=True, slots=True)
class WriterStarted(Event):
    kind: ClassVar[str] = "writer.start"
    writer: str
    sources: tuple[Source, ...]
    round: int = 1

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.kind,
            "writer": self.writer,
            "sources": len(self.sources),
            "round": self.round,
        }


@dataclass(frozen=True, slots=True)
class WriterDelta(Event):
    kind: ClassVar[str] = "writer.delta"
    text: str


@dataclass(frozen=True, slots=True)
class Critiqued(Event):
    """A deep round's gap check: complete, or what is missing and what to search next."""

    kind: ClassVar[str] = "critic"
    round: int
    complete: bool
    missing: tuple[str, ...]
    queries: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Verified(Event):
    kind: ClassVar[str] = "verify.done"
    checked: int
    supported: int


@dataclass(frozen=True, slots=True)
class Done(Event):
    kind: ClassVar[str] = "done"
    result: Result

    def describe(self) -> str:
        r = self.result
        return (
            f"done sources={len(r.sources)} citations={len(r.citations)} confidence={r.confidence}"
        )


@dataclass(frozen=True, slots=True)
class Failed(Event):
    kind: ClassVar[str] = "failed"
    error: str
    code: str
    exit_code: int
    exception: SleuthError | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.kind,
            "error": self.error,
            "code": self.code,
            "exit_code": self.exit_code,
        }
