"""What a batch has left to do, how it shows its progress on a terminal and sums itself up,
the same for questions run here and questions answered by queue workers."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TextIO

from .render import echo


def summary(tally: Any, target: Path | None) -> None:
    where = f"; results in {target}" if target is not None else ""
    parts = [f"{tally.done} answered", f"{tally.failed} failed"]
    if tally.retried:
        parts.append(f"{tally.retried} of them retried after an earlier failure")
    if tally.skipped:
        parts.append(f"{tally.skipped} already in the results")
    if tally.duplicates:
        parts.append(f"{tally.duplicates} repeated ids skipped")
    if tally.failed_before:
        parts.append(
            f"{tally.failed_before} failed in an earlier run and skipped "
            "(run them again with --retry-failed)"
        )
    echo(f"sleuth: batch: {tally.total} lines: {', '.join(parts)}{where}", err=True)


class Bar:
    """A one-line progress bar on a terminal; nothing when stderr is not one (logs, CI)."""

    WIDTH = 28

    def __init__(self, stream: TextIO, total: int) -> None:
        self.stream, self.total = stream, total
        self.live = stream.isatty()
        self.shown = False

    def step(self, tally: Any) -> None:
        if not self.live:
            return
        finished = tally.done + tally.failed
        filled = self.WIDTH * finished // self.total if self.total else self.WIDTH
        bar = "#" * filled + "." * (self.WIDTH - filled)
        line = f"[{bar}] {finished}/{self.total} · {tally.failed} failed"
        self.stream.write("\r" + line + "\x1b[K")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def to_do(questions: Path, results: Any, tally: Any, retry: bool) -> list[Any]:
    """The lines of QUESTIONS this run answers; with `retry`, the earlier failure records of
    the lines it runs again are taken out of the results first (one record per id)."""
    from ..app.batch import pending
    from ..app.batchfile import read_questions

    prior = results.prior()
    todo = pending(
        read_questions(questions),
        prior.answered,
        tally,
        failed=prior.failed,
        retry_failed=retry,
    )
    if retry:
        results.forget(frozenset(entry.id for entry in todo) & prior.failed)
    return todo
