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


def test_by_default_a_batch_runs_on_the_cores_and_batches_share_them() -> None:
    scorer = encoder()
    threads = scorer._session.get_session_options().intra_op_num_threads
    assert threads == min(crossenc.THREADS, crossenc.cores())
    assert busiest(scorer, callers=12) == max(1, crossenc.cores() // threads)


def test_threads_do_not_change_a_score() -> None:
    """More threads make a batch sooner, not different: the heads' thresholds were fitted on
    one thread's scores."""
    question = "when was the harrow bell tower built"
    texts = [
        "Construction of the tower began in 1902 and it was completed in 1907.",
        "The nearby obelisk, a rival monument in the next valley, was finished in 1884.",
        "Visitors climb 212 steps to the bell chamber.",
    ]
    titles = ["Harrow Bell Tower"] * len(texts)
    one, two = encoder(threads=1), encoder(threads=2)
    assert one.score(question, texts, titles) == two.score(question, texts, titles)
