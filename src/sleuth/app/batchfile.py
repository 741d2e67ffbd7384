"""The files of a local batch: questions in (JSONL, read line by line, a huge line refused
without being held in memory) and records out (JSONL, one write per record, flushed).

The output is also the batch's memory: on a resumed run, every id answered in it is skipped,
and so is every id that failed unless the run retries failures — then those failure records
are taken out of the file first, so each id keeps one record. A kill can leave half a record
at its end; that tail is cut off before new records are appended, so the file stays one JSON
object per line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..errors import UsageError
from .batch import MAX_LINE_BYTES, BadLine, Parsed, line_id, parse_line

CHUNK = 1 << 16


def read_questions(path: Path) -> Iterator[Parsed]:
    """Every non-blank line of `path`, parsed; line numbers count from 1."""
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from exc
    with handle:
        number = 0
        while True:
            raw = handle.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                size = len(raw) + _skip_rest(handle)
                why = f"the line is over {MAX_LINE_BYTES} bytes ({size}); at most {MAX_LINE_BYTES}"
                yield BadLine(line_id(raw[:MAX_LINE_BYTES]), number, why)
                continue
            raw = raw.rstrip(b"\r\n")
            if raw.strip():
                yield parse_line(raw, number)


def _skip_rest(handle: IO[bytes]) -> int:
    """Read past the rest of an over-long line; how many bytes that was."""
    skipped = 0
    while True:
        chunk = handle.readline(CHUNK)
        skipped += len(chunk)
        if not chunk or chunk.endswith(b"\n"):
            return skipped


@dataclass(frozen=True, slots=True)
class Prior:
    """What an earlier run left in the results: ids answered, ids that failed (an id's last
    record decides)."""

    answered: frozenset[str] = frozenset()
    failed: frozenset[str] = frozenset()


class ResultsFile:
    """Records appended to a JSONL file (or written to a stream such as stdout)."""

    def __init__(self, path: Path | None, stream: IO[str] | None = None) -> None:
        self.path = path
        self._stream = stream
        self._handle: IO[str] | None = None

    def answered(self) -> set[str]:
        """Ids with a record already in the file (cutting off a half-written last line)."""
        prior = self.prior()
        return set(prior.answered | prior.failed)

    def prior(self) -> Prior:
        """The ids the file already answered and the ids it holds as failures."""
        last: dict[str, bool] = {}
        for ident, failed, _ in self._records():
            if ident is not None:
                last[ident] = failed
        return Prior(
            frozenset(i for i, bad in last.items() if not bad),
            frozenset(i for i, bad in last.items() if bad),
        )

    def forget(self, ids: frozenset[str]) -> int:
        """Take the records of `ids` out of the file (before they are run again), replacing
        it in one rename so a kill leaves the old file or the new one; how many went."""
        if self.path is None or not ids or not self.path.exists():
            return 0
        kept, dropped = [], 0
        for ident, _, text in self._records():
            if ident in ids:
                dropped += 1
            else:
                kept.append(text)
        if dropped:
            spare = self.path.with_name(self.path.name + ".tmp")
            spare.write_text("".join(kept), encoding="utf-8")
            os.replace(spare, self.path)
        return dropped

    def _records(self) -> Iterator[tuple[str | None, bool, str]]:
        """(id, failed, line) of each line already in the file (id None for a line that is
        no record); a half-written last line is cut off first."""
        if self.path is None or not self.path.exists():
            return
        if self.path.is_dir():
            raise UsageError(f"--out: {self.path} is a directory; give a file name")
        _cut_partial_tail(self.path)
        with self.path.open("r", encoding="utf-8", errors="replace") as handle:
            for text in handle:
                data = _record(text)
                ident = data.get("id")
                yield (ident if isinstance(ident, str) else None), "error" in data, text

    def write(self, record: dict[str, Any]) -> None:
        handle = self._open()
        handle.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
        handle.flush()

    def _open(self) -> IO[str]:
        if self._handle is None:
            if self.path is None:
                assert self._stream is not None
                self._handle = self._stream
            else:
                try:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    self._handle = self.path.open("a", encoding="utf-8")
                except OSError as exc:
                    raise UsageError(
                        f"--out: cannot write {self.path}: {exc.strerror or exc}"
                    ) from exc
        return self._handle

    def close(self) -> None:
        if self._handle is not None and self.path is not None:
            self._handle.close()
        self._handle = None


def _record(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def _cut_partial_tail(path: Path) -> None:
    """Drop bytes after the last newline: a record a kill interrupted mid-write."""
    with path.open("rb+") as handle:
        size = handle.seek(0, os.SEEK_END)
        if size == 0:
            return
        handle.seek(size - 1)
        if handle.read(1) == b"\n":
            return
        at = size
        while at > 0:
            step = min(CHUNK, at)
            handle.seek(at - step)
            block = handle.read(step)
            newline = block.rfind(b"\n")
            if newline >= 0:
                handle.truncate(at - step + newline + 1)
                return
            at -= step
        handle.truncate(0)
