"""Rendering for the terminal: the live progress line, --verbose events, the final answer."""

from __future__ import annotations

import json
import sys
from typing import TextIO

import click

from ..events import (
    Event,
    Fetched,
    FetchSkipped,
    Notice,
    PassagesKept,
    Planned,
    ReadStarted,
    SearchDegraded,
    Searched,
    WriterDelta,
    WriterReasoning,
    WriterStarted,
)
from ..settings.table import flag_name
from ..text.display import counted, terminal_safe
from ..types import Result


def echo(text: str = "", *, err: bool = False, nl: bool = True) -> None:
    """`click.echo` for text that may hold outside words (titles, answers, server errors):
    terminal control sequences are removed first, so a page or a model can neither write the
    clipboard (OSC 52), hide a link (OSC 8), nor move the cursor over what Sleuth printed."""
    click.echo(terminal_safe(text), err=err, nl=nl)


class Progress:
    """Consumes engine events: a one-line live status in a TTY, every event with --verbose."""

    def __init__(
        self,
        stream: TextIO | None = None,
        verbose: bool = False,
        live: bool | None = None,
        drafts: TextIO | None = None,
    ) -> None:
        self.stream = stream or sys.stderr
        self.verbose = verbose
        self.live = self.stream.isatty() if live is None else live
        self.drafts = drafts  # deep runs in a terminal: each round's draft streams here
        self.draft = ""  # the text of the latest draft, to tell whether the final repeats it
        self.read = self.skipped = self.to_read = 0
        self.found: dict[str, int] = {}  # results per backend in the current round
        self.status = ""  # the status line on show: the same one again is not news
        self.thinking = False  # inside a run of reasoning text on the stream

    def __call__(self, event: Event) -> None:
        if isinstance(event, WriterReasoning):
            self._reasoning(event.text)
            return
        self._end_reasoning()
        if self.drafts is not None and isinstance(event, WriterStarted | WriterDelta):
            self._draft(event)
            return  # a status line would run into the draft text on the terminal
        if isinstance(event, Notice):
            self._line(f"sleuth: {event.worded(flag_name)}", keep=True)
        elif self.verbose and not isinstance(event, WriterDelta):
            self._line(event.describe(), keep=True)
        elif self.live:
            status = self._status(event)
            if status and status != self.status:
                self.status = status
                self._line(status, keep=False)

    def _reasoning(self, text: str) -> None:
        """With --verbose, the model's reasoning streams as it thinks; never on stdout."""
        if not self.verbose:
            return
        if not self.thinking:
            self._line("writer.reasoning:", keep=True)
            self.thinking = True
        self.stream.write(text)
        self.stream.flush()

    def _end_reasoning(self) -> None:
        if self.thinking:
            self.stream.write("\n")
            self.thinking = False

    def _draft(self, event: WriterStarted | WriterDelta) -> None:
        assert self.drafts is not None
        if isinstance(event, WriterStarted):
            self.clear()
            self.draft = ""
            heading = f"## Round {event.round} (deep)\n\n" if event.round > 1 else ""
            self.drafts.write(("\n\n---\n" if event.round > 1 else "") + heading)
        else:
            self.draft += event.text
            self.drafts.write(terminal_safe(event.text))
        self.drafts.flush()

    def _status(self, event: Event) -> str | None:
        if isinstance(event, Planned):
            self.found = {}
            return f"searching: {', '.join(event.queries)[:70]}"
        if isinstance(event, Searched):
            self.found[event.backend] = self.found.get(event.backend, 0) + event.results
            return _found(self.found)
        if isinstance(event, SearchDegraded):
            return f"search backend {event.backend} failed: {event.error}"[:100]
        if isinstance(event, ReadStarted):
            self.to_read += event.pages
            if not self.to_read:
                return None  # only local files (read already) or snippets: nothing to fetch
        if isinstance(event, ReadStarted | Fetched | FetchSkipped):
            self.read += isinstance(event, Fetched)
            self.skipped += isinstance(event, FetchSkipped)
            return f"reading: {self.read} of {self.to_read} read, {self.skipped} skipped"
        if isinstance(event, PassagesKept):
            return (
                f"kept {counted(event.passages, 'passage')} from {counted(event.sources, 'source')}"
            )
        if isinstance(event, WriterStarted):
            return f"writing ({event.writer})"
        return None

    def _line(self, text: str, keep: bool) -> None:
        if self.live:
            self.stream.write("\r\x1b[2K")
        text = terminal_safe(text).replace("\n", " ")  # one line, whatever came from outside
        if keep:
            self.status = ""  # the status line was cleared for this one
            self.stream.write(text + "\n")
        else:
            self.stream.write(text[:120])
        self.stream.flush()

    def clear(self) -> None:
        if self.live:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()


def _found(per_backend: dict[str, int]) -> str:
    """`found 4 results (local)`: a backend that found nothing (`none`) is not news."""
    total = sum(per_backend.values())
    named = [name for name, n in per_backend.items() if n] or list(per_backend)
    return f"found {total} results ({', '.join(named)})"


def markdown(result: Result) -> str:
    """The question as a heading, the answer, and its sources with their fetch dates."""
    from ..export.markdown import result_markdown

    return result_markdown(result, question=result.query)


def as_json(result: Result) -> str:
    return json.dumps(result.to_json(), ensure_ascii=False, indent=2) + "\n"


def confidence_line(result: Result) -> str:
    v = result.verification
    checks = (
        f"citations checked: {v.supported}/{v.checked} pass" if v.enabled else "citations unchecked"
    )
    why = f" · {result.confidence_reasons[0]}" if result.confidence_reasons else ""
    sources = counted(len(result.sources), "source")
    return f"confidence · {result.confidence}{why} · {sources} · {checks}"
