"""Run events: the one typed stream every interface consumes.

A run yields these in order and ends with `Done` (carrying the result) or `Failed`. The CLI's
progress line and `--verbose`, the SSE streams, MCP progress and the web UI all read this stream;
none of them reach into the engine. `AnyEvent` is the closed union of every event; each event's
`kind` is `<subject>.<what happened>`, and the engine stamps every event with its run's id and a
sequence number (`seq`, from 1), so an event is self-describing on the wire.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, TypeAlias

from .errors import SkipCause, SleuthError, worded
from .types import Result, Source


@dataclass(frozen=True, slots=True)
class Event:
    kind: ClassVar[str] = "event"
    run_id: str = field(default="", kw_only=True)
    seq: int = field(default=0, kw_only=True)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.kind}
        for f in fields(self):
            value = getattr(self, f.name)
            data[f.name] = value.to_json() if hasattr(value, "to_json") else value
        return data

    def describe(self) -> str:
        """One human line for --verbose."""
        skip = {"type", "run_id", "seq"}
        parts = [f"{k}={v!r}" for k, v in self.to_json().items() if k not in skip]
        return f"{self.kind} " + " ".join(parts)


@dataclass(frozen=True, slots=True)
class Planned(Event):
    """The queries a round is about to search (the question first, then sub-queries)."""

    kind: ClassVar[str] = "plan.ready"
    queries: tuple[str, ...]
    plan: str = "single"
    round: int = 1
    reason: str = ""  # why a quick run searches again: "follow-up", "gap follow-up"


@dataclass(frozen=True, slots=True)
class Notice(Event):
    """Something a user should see even without --verbose (fallback used, no LLM, ...).

    `setting` names the setting the message is about, for interfaces to word it their way;
    `after` marks news about the finished run (its session could not be saved), which a
    terminal shows after the answer, so the answer always comes first."""

    kind: ClassVar[str] = "notice"
    message: str
    setting: str | None = None
    after: bool = False

    def worded(self, name_for: Callable[[str], str]) -> str:
        return worded(self.message, self.setting, name_for)


@dataclass(frozen=True, slots=True)
class Searched(Event):
    kind: ClassVar[str] = "search.done"
    query: str
    backend: str
    results: int
    ms: int


@dataclass(frozen=True, slots=True)
class SearchDegraded(Event):
    """A backend failed for one query; the round goes on with what the others found."""

    kind: ClassVar[str] = "search.failed"
    backend: str
    error: str


@dataclass(frozen=True, slots=True)
class ReadStarted(Event):
    """A round starts reading `pages` candidates; one fetch event per page follows (read,
    skipped, or cut off at the round's deadline), so watchers can show "reading n/pages"."""

    kind: ClassVar[str] = "read.start"
    pages: int


@dataclass(frozen=True, slots=True)
class Fetched(Event):
    kind: ClassVar[str] = "fetch.done"
    url: str
    chars: int
    ms: int
    cached: bool = False
    title: str = ""  # the page's own title, for people watching the run ("" when it has none)


@dataclass(frozen=True, slots=True)
class FetchSkipped(Event):
    """A candidate page not used: `cause` is for programs, `reason` for people."""

    kind: ClassVar[str] = "fetch.skipped"
    url: str
    reason: str
    cause: SkipCause = "error"


@dataclass(frozen=True, slots=True)
class NearDuplicate(Event):
    """A page dropped because its text nearly repeats a page already kept (syndicated copy)."""

    kind: ClassVar[str] = "fetch.duplicate"
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
            "run_id": self.run_id,
            "seq": self.seq,
            "writer": self.writer,
            "sources": len(self.sources),
            "round": self.round,
        }


@dataclass(frozen=True, slots=True)
class WriterDelta(Event):
    kind: ClassVar[str] = "writer.delta"
    text: str


@dataclass(frozen=True, slots=True)
class WriterReasoning(Event):
    """A piece of the writing model's reasoning, streamed as it thinks: for people watching
    (`--verbose`, the SSE `reasoning` event), never part of the answer."""

    kind: ClassVar[str] = "writer.reasoning"
    text: str


@dataclass(frozen=True, slots=True)
class Critiqued(Event):
    """A deep round's gap check: complete, or what is missing and what to search next."""

    kind: ClassVar[str] = "critic.done"
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
    kind: ClassVar[str] = "run.done"
    result: Result

    def describe(self) -> str:
        r = self.result
        return (
            f"{self.kind} sources={len(r.sources)} citations={len(r.citations)} "
            f"confidence={r.confidence}"
        )


@dataclass(frozen=True, slots=True)
class Failed(Event):
    """The run ended without a result. `http_status` and `retryable` come from the error, so
    every interface reports a failure the same way without a lookup table of its own."""

    kind: ClassVar[str] = "run.failed"
    error: str
    code: str
    exit_code: int
    http_status: int = 500
    retryable: bool = False
    setting: str | None = None
    exception: SleuthError | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, exc: SleuthError) -> Failed:
        return cls(
            str(exc),
            exc.code,
            exc.exit_code,
            exc.http_status,
            exc.retryable,
            exc.setting,
            exception=exc,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.kind,
            "run_id": self.run_id,
            "seq": self.seq,
            "error": self.error,
            "code": self.code,
            "exit_code": self.exit_code,
            "http_status": self.http_status,
            "retryable": self.retryable,
        }


AnyEvent: TypeAlias = (
    Planned
    | Notice
    | Searched
    | SearchDegraded
    | ReadStarted
    | Fetched
    | FetchSkipped
    | NearDuplicate
    | PassagesKept
    | WriterStarted
    | WriterDelta
    | WriterReasoning
    | Critiqued
    | Verified
    | Done
    | Failed
)
EVENT_TYPES: tuple[type[Event], ...] = AnyEvent.__args__

# Where a stage reports what it does: the run's emitter stamps and queues each event.
Emit: TypeAlias = Callable[[Event], None]
