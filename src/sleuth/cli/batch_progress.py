"""How a batch shows its progress on a terminal and sums itself up, the same for questions run
here and questions answered by queue workers."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TextIO

from .render import echo


def summary(tally: Any, target: Path | None) -> None:
    where = f"; results in {target}" if target is not None else ""
    parts = [f"{tally.done} answered", f"{tally.failed} failed"]
    if tally.skipped:
        parts.append(f"{tally.skipped} already in the results")
    if tally.duplicates:
        parts.append(f"{tally.duplicates} repeated ids skipped")
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
