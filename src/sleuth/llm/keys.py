"""API keys spread round-robin across calls; a key the endpoint rejects as invalid is dropped.

Rings are shared per process by endpoint and key tuple, so a key that got a 401 in one stage
(plan, critic, synth) is not tried again by the next one, while the same key sent to another
endpoint keeps its own standing.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Callable

from ..errors import LLMError

# Local OpenAI-compatible servers (Ollama, vLLM, llama.cpp) ignore the key, but the SDKs insist
# on one being set.
NO_KEY = "sleuth-no-key"
_PIECE = re.compile(r"[A-Za-z0-9_\-]{8,}")  # runs that may be a whole or partial key


def split_keys(value: str | None) -> tuple[str, ...]:
    """`"k1, k2"` → `("k1", "k2")`; blanks and repeats dropped, order kept."""
    if not value:
        return ()
    keys = (k.strip() for k in value.split(","))
    return tuple(dict.fromkeys(k for k in keys if k))


class KeyRing:
    def __init__(self, keys: tuple[str, ...]) -> None:
        self._keys = keys or (NO_KEY,)
        self._cycle = itertools.cycle(range(len(self._keys)))
        self._dead: set[str] = set()
        self._lock = threading.Lock()

    def next(self) -> str:
        """The next live key; raises LLMError when every key has been rejected."""
        with self._lock:
            for _ in range(len(self._keys)):
                key = self._keys[next(self._cycle)]
                if key not in self._dead:
                    return key
        raise LLMError(f"LLM endpoint refused every API key ({len(self._keys)} tried: 401)")

    def reject(self, key: str) -> None:
        with self._lock:
            self._dead.add(key)

    def redact(self, text: str) -> str:
        """`text` with every key of this ring (and any 8+ character piece of one, as a server
        may echo a key cut short) replaced by `[redacted]`: endpoints echo the key they
        were sent in error bodies, and error messages are printed and logged."""
        for key in self._keys:
            if key == NO_KEY or len(key) < 8:
                continue
            text = _PIECE.sub(_hider(key), text.replace(key, "[redacted]"))
        return text

    @property
    def live(self) -> int:
        return len([k for k in self._keys if k not in self._dead])


def _hider(key: str) -> Callable[[re.Match[str]], str]:
    def hide(match: re.Match[str]) -> str:
        return "[redacted]" if match.group() in key else match.group()

    return hide


_rings: dict[tuple[str, tuple[str, ...]], KeyRing] = {}
_rings_lock = threading.Lock()


def shared_ring(endpoint: str, keys: tuple[str, ...]) -> KeyRing:
    """The process-wide ring for this set of keys at this endpoint."""
    with _rings_lock:
        ring = _rings.get((endpoint, keys))
        if ring is None:
            ring = _rings[(endpoint, keys)] = KeyRing(keys)
        return ring
