"""Separate reasoning blocks (`<think>`, `<thinking>`, `<reasoning>`) from model output.

Reasoning models served through OpenAI-compatible endpoints often put their chain of thought in
the text itself. It must not reach the answer, but people watching a run may want to see it, so
the filter hands it back separately (`take_reasoning`). In a stream a tag can arrive split across
deltas (`"<thi"`, `"nk>"`), so the filter holds back any tail that could still become a tag.
A block that never closes swallows the rest of the output: a half-finished thought is not an
answer. Whitespace between a block and the answer is dropped at the start of the output.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

_TAGS = ("think", "thinking", "reasoning")
_OPENERS = tuple(f"<{t}>" for t in _TAGS)


class ReasoningFilter:
    """Incremental filter: `feed` each delta (visible text back), then `flush` once at the end;
    `take_reasoning` drains the reasoning text seen since it was last called."""

    def __init__(self) -> None:
        self._buf = ""
        self._closer: str | None = None  # set while inside a block
        self._visible = False  # has any non-whitespace text been emitted yet
        self._thought: list[str] = []

    def feed(self, delta: str) -> str:
        self._buf += delta
        out: list[str] = []
        while self._buf:
            if self._closer is not None:
                if not self._skip_block():
                    break
            elif not self._emit_until_block(out):
                break
        return self._lead("".join(out))

    def flush(self) -> str:
        rest, self._buf = self._buf, ""
        if self._closer is not None:
            self._thought.append(rest)
            return ""
        return self._lead(rest)

    def take_reasoning(self) -> str:
        text, self._thought = "".join(self._thought), []
        return text

    def _skip_block(self) -> bool:
        """Move text up to the closing tag to the reasoning; False until the tag has arrived."""
        assert self._closer is not None
        at = self._buf.lower().find(self._closer)
        if at < 0:
            # Hold back only what could be the start of the closing tag.
            keep = len(self._closer) - 1
            self._thought.append(self._buf[:-keep] if len(self._buf) > keep else "")
            self._buf = self._buf[-keep:]
            return False
        self._thought.append(self._buf[:at])
        self._buf = self._buf[at + len(self._closer) :]
        self._closer = None
        return True

    def _emit_until_block(self, out: list[str]) -> bool:
        """Move text before the next opening tag to `out`; False when more input is needed."""
        lowered = self._buf.lower()
        found = [(lowered.find(o), o) for o in _OPENERS if o in lowered]
        if found:
            at, opener = min(found)
            out.append(self._buf[:at])
            self._buf = self._buf[at + len(opener) :]
            self._closer = "</" + opener[1:]
            return True
        hold = _partial_opener_len(lowered)
        out.append(self._buf[: len(self._buf) - hold])
        self._buf = self._buf[len(self._buf) - hold :]
        return False

    def _lead(self, text: str) -> str:
        if not self._visible:
            text = text.lstrip()
            self._visible = bool(text)
        return text


def _partial_opener_len(lowered: str) -> int:
    """Length of the longest tail of `lowered` that is a proper prefix of an opening tag."""
    start = lowered.rfind("<")
    if start < 0:
        return 0
    tail = lowered[start:]
    return len(tail) if any(o.startswith(tail) and o != tail for o in _OPENERS) else 0


async def strip_reasoning(deltas: AsyncIterator[str]) -> AsyncIterator[str]:
    """The visible text of a stream of deltas, reasoning blocks removed; empty pieces skipped."""
    flt = ReasoningFilter()
    async for delta in deltas:
        piece = flt.feed(delta)
        if piece:
            yield piece
    tail = flt.flush()
    if tail:
        yield tail


def strip_reasoning_text(text: str) -> str:
    flt = ReasoningFilter()
    return flt.feed(text) + flt.flush()


def split_reasoning_text(text: str) -> tuple[str, str]:
    """(visible text, reasoning text) of a whole reply."""
    flt = ReasoningFilter()
    visible = flt.feed(text) + flt.flush()
    return visible, flt.take_reasoning()
