"""The cross-encoder runs at most a set number of batches at once: onnxruntime keeps the memory
of its busiest moment for the session's life, so a burst of runs scoring together would grow
a server for good (tests/faults/test_served.py measures the served process)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import Any

from sleuth.pipeline import crossenc


class Counting:
    """A session that records how many runs are inside it at once."""

    def __init__(self) -> None:
        self.inside = 0
        self.most = 0
        self.lock = threading.Lock()

    def run(self, outputs: Any, feed: dict[str, Any]) -> list[Any]:
        with self.lock:
            self.inside += 1
            self.most = max(self.most, self.inside)
        time.sleep(0.02)
        with self.lock:
            self.inside -= 1
        return [feed["input_ids"][:, :1].astype(float)]


def encoder(**options: Any) -> crossenc.CrossEncoder:
    root = resources.files("sleuth.pipeline")
    model = Path(str(root.joinpath(crossenc.MODEL)))
    return crossenc.CrossEncoder(model, Path(str(root.joinpath(crossenc.VOCAB))), **options)


def busiest(scorer: crossenc.CrossEncoder, callers: int) -> int:
    session = Counting()
    scorer._session = session
    with ThreadPoolExecutor(callers) as pool:
        list(pool.map(lambda i: scorer.score(f"question {i}", ["a sentence"], ["t"]), range(48)))
    return session.most


def test_no_more_batches_run_at_once_than_it_allows() -> None:
    assert busiest(encoder(parallel=2), callers=12) == 2


def test_by_default_one_batch_a_core() -> None:
    assert 1 <= busiest(encoder(), callers=12) <= crossenc.cores()
