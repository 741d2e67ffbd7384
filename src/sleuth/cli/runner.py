"""Run research for a command: progress on stderr, the answer on stdout, the session line.

`ask`, `continue`, `resume` and `rerun` all end here; the application runs and saves the
research, this module only shows it.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ..errors import CitationCheckFailed, NoAnswerError, UsageError
from ..events import Event, Notice
from ..settings import Settings
from ..text.display import terminal_safe
from ..types import Result
from .render import Progress, as_json, confidence_line, echo, markdown

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Output:
    as_json: bool = False
    out: Path | None = None
    verbose: bool = False
    strict_cites: bool = False
    show_cost: bool = True
    deep: bool = False
    require_answer: bool = False
    question: str = ""  # the heading above streamed drafts ("" when not known yet)

    @classmethod
    def of(cls, flags: Mapping[str, Any], question: str = "") -> Output:
        """How to show a run, from the resolved settings (json, out, verbose, ...)."""
        out = flags.get("out")
        return cls(
            bool(flags.get("json")),
            None if out is None else Path(out),
            bool(flags.get("verbose")),
            bool(flags.get("strict_cites")),
            not flags.get("no_cost", False),
            flags.get("deep") is not None,
            bool(flags.get("require_answer")),
            question.strip(),
        )

    @property
    def drafts(self) -> bool:
        """Deep drafts stream to a terminal as they are written; the checked final follows."""
        return self.deep and not self.as_json and sys.stdout.isatty()


def with_app(use: Callable[[Any], Awaitable[T]], settings: Settings | None = None) -> T:
    """Run one use case on a fresh application and close it."""
    from ..app.application import Sleuth

    async def go() -> T:
        async with Sleuth(settings) as app:
            return await use(app)

    return asyncio.run(go())


def research(
    start: Callable[[Any, Callable[[Event], None]], Awaitable[Result]],
    output: Output,
    live: bool | None = None,
    settings: Settings | None = None,
) -> Result:
    """Run `start(app, on_event)` with progress on stderr, then print the result (`live=False`
    when `start` prompts: no status line to overwrite the prompt)."""
    drafts = sys.stdout if output.drafts else None
    progress = Progress(verbose=output.verbose, live=live, drafts=drafts)
    later: list[Notice] = []

    def on_event(event: Event) -> None:
        if isinstance(event, Notice) and event.after:
            later.append(event)
            return
        progress(event)

    if output.drafts and output.question:
        echo(f"# {' '.join(output.question.split())}\n")
    try:
        result = with_app(lambda app: start(app, on_event), settings)
    finally:
        progress.clear()
    shown = after_drafts(result, progress.draft) if output.drafts else None
    show(result, output, _cost_line(result), shown)
    for notice in later:
        progress(notice)
    return result


def after_drafts(result: Result, draft: str) -> str:
    """What stdout still needs once the drafts streamed: only the sources when the checked final
    answer is the last draft, else a rule and the final answer."""
    from ..export.markdown import sources_markdown

    if " ".join((result.answer or "").split()) == " ".join(draft.split()):
        return "\n\n" + sources_markdown(result) + "\n"
    return "\n\n---\n\n" + markdown(result)


def _cost_line(result: Result) -> str:
    """The models' calls, tokens and cost of the run shown (every stage of a steered one)."""
    from ..llm.meter import summary_of

    return summary_of(result.usage.by_model)


def show(result: Result, output: Output, cost: str = "", shown: str | None = None) -> None:
    """The result on stdout (`shown` instead when part of it already streamed), `--out`, and
    the confidence, cost and session lines on stderr."""
    text = terminal_safe(as_json(result) if output.as_json else markdown(result))
    echo(text if shown is None else terminal_safe(shown), nl=False)
    if output.out is not None:
        write_out(output.out, text)
    echo(confidence_line(result), err=True)
    if output.show_cost and cost:
        echo(cost, err=True)
    if result.session_id:
        echo(f"session {result.session_id} (sleuth resume {result.session_id})", err=True)
    if output.strict_cites and result.verification.unsupported:
        v = result.verification
        raise CitationCheckFailed(
            f"--strict-cites: {len(v.unsupported)} of {v.checked} cited sentences are not "
            "supported by their sources"
        )
    if output.require_answer and result.confidence == "low":
        why = f" ({result.confidence_reasons[0]})" if result.confidence_reasons else ""
        raise NoAnswerError(
            f"require_answer: the sources do not answer the question{why}",
            setting="require_answer",
        )


def write_out(path: Path, text: str) -> None:
    """Write an output file; any failure (a full disk, a name too long, a directory, a file
    in /proc) is one line naming the file, never a traceback."""
    write_bytes(path, text.encode("utf-8"))


def write_bytes(path: Path, data: bytes) -> None:
    """`write_out` for bytes (an evidence pack)."""
    try:
        if path.is_dir():
            raise UsageError(f"--out: {path} is a directory; give a file name")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    except OSError as exc:
        raise UsageError(f"--out: cannot write {path}: {exc.strerror or exc}") from exc
