"""Batch research: many questions, one line each, every one ending in a result or a recorded
failure — never stopping the batch.

A batch line is a JSON object: `{"question": "...", "id"?: ..., "depth"?: "quick|deep", ...}`
plus any per-question run setting of the settings table (`max_sources`, `since`,
`source_authority`, `output`, `language`, `search_lang`, `tldr`, `images`, `allow_domain`,
`deny_domain`, `cite_min_recall`, `max_runtime`, `schema` as an inline object) or its API
name (`query`, `freshness`, `include_domains`, `exclude_domains`). Values are checked by the
table's own coercion, so a line refuses what a flag or an API field refuses. Engine settings
(search backend, model endpoint, keys) are the batch's, never a line's.

A line's id is its `id` field, else a hash of the line: the same line is the same question on
a resumed run. The local runner (`run_local`) and the queue's workers both go through
`answer_item`, so a record reads the same whichever ran it:

    {"id", "line", "question", "result": {...}}
    {"id", "line", "question", "error": {"kind", "message"}}
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import SleuthError, UsageError
from ..limits import DEEP_ROUNDS, MAX_QUESTION_CHARS, QUICK
from ..settings.table import SETTINGS
from ..settings.values import coerce, parse_freshness

if TYPE_CHECKING:
    from .application import Sleuth

MAX_LINE_BYTES = 64_000  # a question line longer than this is refused unread
MAX_ID = 200
# Per-question settings: what one run does, never how the batch is assembled.
LINE_SETTINGS = frozenset(
    name
    for name, s in SETTINGS.items()
    if s.target == "run" and name not in ("concurrency", "require_llm")
)
_ALIASES = {"include_domains": "allow_domain", "exclude_domains": "deny_domain"}
_RESERVED = frozenset({"id", "question", "query", "depth", "freshness"})

Record = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Item:
    """One question to answer, with its own setting values (by table names)."""

    id: str
    line: int
    question: str
    values: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class BadLine:
    """A line that is not a question: recorded as a failure with its reason, never run."""

    id: str
    line: int
    message: str

    def record(self) -> Record:
        return {
            "id": self.id,
            "line": self.line,
            "question": None,
            "error": {"kind": "input", "message": self.message},
        }


Parsed = Item | BadLine


def line_id(raw: bytes) -> str:
    """The id of a line without an `id` field: the hash of its text, trimmed."""
    return "h" + hashlib.sha256(raw.strip()).hexdigest()[:16]


def parse_line(raw: bytes, line: int) -> Parsed:
    """One input line (bytes, without its newline) as an item or a bad line."""
    fallback = line_id(raw)
    if len(raw) > MAX_LINE_BYTES:
        return BadLine(fallback, line, f"the line is {len(raw)} bytes; at most {MAX_LINE_BYTES}")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return BadLine(fallback, line, "the line is not UTF-8 text")
    except (json.JSONDecodeError, RecursionError) as exc:
        why = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
        return BadLine(fallback, line, f"the line is not JSON ({why})")
    return parse_object(data, line, fallback)


def parse_object(data: object, line: int, fallback_id: str) -> Parsed:
    """A decoded line (or an API batch entry) as an item, its values checked by the table."""
    if not isinstance(data, dict):
        return BadLine(fallback_id, line, "a line must be a JSON object with a question")
    try:
        ident = _id_of(data, fallback_id)
    except UsageError as exc:
        return BadLine(fallback_id, line, str(exc))
    try:
        return Item(ident, line, _question_of(data), line_values(data))
    except UsageError as exc:
        return BadLine(ident, line, str(exc))


def _id_of(data: Mapping[str, Any], fallback: str) -> str:
    value = data.get("id")
    if value is None:
        return fallback
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise UsageError("id must be a string or a whole number", setting="id")
    text = str(value).strip()
    if not text or len(text) > MAX_ID or not text.isprintable():
        raise UsageError(f"id must be 1 to {MAX_ID} printable characters", setting="id")
    return text


def _question_of(data: Mapping[str, Any]) -> str:
    value = data.get("question", data.get("query"))
    if value is None:
        raise UsageError("the line has no question", setting="question")
    if not isinstance(value, str):
        raise UsageError("question must be text", setting="question")
    text = " ".join(value.split())
    if not text:
        raise UsageError("the question is empty", setting="question")
    if len(text) > MAX_QUESTION_CHARS:
        raise UsageError(
            f"the question is {len(text)} characters; at most {MAX_QUESTION_CHARS}",
            setting="question",
        )
    return text


def line_values(data: Mapping[str, Any]) -> dict[str, Any]:
    """A line's own settings, checked; unknown names and engine settings are refused."""
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key in ("id", "question", "query") or value is None:
            continue
        if key == "depth":
            values.update(_depth(value))
        elif key == "freshness":
            values["since"] = parse_freshness(_text(key, value)).isoformat()
        else:
            name = _ALIASES.get(key, key)
            values[name] = _checked(name, value)
    return values


def _depth(value: Any) -> dict[str, Any]:
    if value == "quick":
        return {"deep": QUICK}
    if value == "deep":
        return {"deep": DEEP_ROUNDS}
    raise UsageError(f"depth must be quick or deep, not {value!r}", setting="depth")


def _text(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise UsageError(f"{name} must be text", setting=name)
    return value


def _checked(name: str, value: Any) -> Any:
    """`value` as JSON for setting `name`, once the table's coercion accepts it."""
    if name not in LINE_SETTINGS:
        known = ", ".join(sorted(LINE_SETTINGS | _RESERVED | set(_ALIASES)))
        raise UsageError(f"unknown or batch-wide setting {name!r}; a line may set: {known}")
    if name == "schema":
        if not isinstance(value, dict):
            raise UsageError("schema must be a JSON Schema object", setting="schema")
        from .options import load_schema

        return load_schema(value)
    if isinstance(value, dict | list) and SETTINGS[name].kind != "list":
        raise UsageError(f"{name} must be a single value", setting=name)
    coerced = coerce(name, value)
    if isinstance(coerced, tuple):
        return list(coerced)
    return value if SETTINGS[name].kind in ("since", "duration") else coerced


# -- answering one item --------------------------------------------------------------------------


def run_values(base: Mapping[str, Any], item: Item) -> dict[str, Any]:
    """The batch-wide values with the line's own on top (a line's `depth: quick` clears
    a batch-wide `--depth deep`)."""
    return {**base, **item.values}


def failure(item: Item, kind: str, message: str) -> Record:
    return {
        "id": item.id,
        "line": item.line,
        "question": item.question,
        "error": {"kind": kind, "message": message},
    }


def success(item: Item, result: Mapping[str, Any]) -> Record:
    return {"id": item.id, "line": item.line, "question": item.question, "result": result}


def error_kind(exc: BaseException) -> str:
    """A failure's kind: the error's code in lower case (`no_sources`, `deadline_exceeded`,
    `search_failed`, ...), `internal` for anything unexpected."""
    return exc.code.lower() if isinstance(exc, SleuthError) else "internal"


async def answer_item(
    app: Sleuth, item: Item, base: Mapping[str, Any], on_event: Callable[[Any], None] | None = None
) -> Record:
    """Research one item through the application: its record, success or failure. Never
    raises for the item's own failure (cancellation still propagates)."""
    try:
        result = await app.ask(item.question, on_event=on_event, **run_values(base, item))
    except SleuthError as exc:
        return failure(item, error_kind(exc), str(exc))
    except Exception as exc:  # one question's bug must not stop a batch of thousands
        return failure(item, "internal", f"{type(exc).__name__}: {exc}")
    return success(item, result.to_json())


# -- the local runner ----------------------------------------------------------------------------


@dataclass(slots=True)
class Tally:
    """How a batch went: `total` lines, `skipped` already answered, `done`, `failed`;
    `failed_before` lines whose earlier failure was kept (not retried), `retried` lines
    whose earlier failure was run again."""

    total: int = 0
    skipped: int = 0
    done: int = 0
    failed: int = 0
    duplicates: int = 0
    failed_before: int = 0
    retried: int = 0

    @property
    def unanswered(self) -> int:
        """Lines of this batch that stand failed: this run's and the kept earlier ones."""
        return self.failed + self.failed_before

    def count(self, record: Record) -> None:
        if "error" in record:
            self.failed += 1
        else:
            self.done += 1


Sink = Callable[[Record], Awaitable[None] | None]


def pending(
    parsed: Iterable[Parsed],
    answered: Collection[str],
    tally: Tally,
    *,
    failed: Collection[str] = frozenset(),
    retry_failed: bool = False,
) -> list[Parsed]:
    """The lines still to do, each id once: not answered in an earlier run, and not failed
    in one unless `retry_failed` (a line fixed since keeps its id, so only a retry runs it)."""
    todo: list[Parsed] = []
    seen: set[str] = set()
    for entry in parsed:
        tally.total += 1
        if entry.id in answered:
            tally.skipped += 1
        elif entry.id in seen:
            tally.duplicates += 1
        elif entry.id in failed and not retry_failed:
            seen.add(entry.id)
            tally.failed_before += 1
        else:
            seen.add(entry.id)
            tally.retried += entry.id in failed
            todo.append(entry)
    return todo


async def run_local(
    app: Sleuth,
    todo: list[Parsed],
    base: Mapping[str, Any],
    sink: Sink,
    *,
    concurrency: int,
    tally: Tally,
) -> Tally:
    """Answer `todo` with up to `concurrency` questions at once; every record goes to `sink`
    as soon as it is known (so a kill loses only the questions in flight)."""
    queue: asyncio.Queue[Parsed] = asyncio.Queue()
    for entry in todo:
        queue.put_nowait(entry)

    async def worker() -> None:
        while not queue.empty():
            entry = queue.get_nowait()
            if isinstance(entry, BadLine):
                record = entry.record()
            else:
                record = await answer_item(app, entry, base)
            tally.count(record)
            written = sink(record)
            if written is not None:
                await written

    await asyncio.gather(*(worker() for _ in range(max(1, min(concurrency, len(todo) or 1)))))
    return tally
