"""Reading the user's own files: multilingual-e5-small picks the lead and decides whether the
files answer (issue 25; docs/reader.md, twenty-first and twenty-second rounds).

The reader was fitted on Wikipedia pages. Over a user's own files, on probes written by helpers
that saw neither its code nor each other's probes (`bench/own-files-b` to `-f`), its run
decision told the answerable questions from the unanswerable ones no better than chance, and
its cross-encoder ranked the files' sentences below word overlap. e5-small, trained on broad
data, reads them better. So when every kept source is a local file (`--include`, a knowledge
base) and the `embed` extra is installed, the extractive writer leads with the sentence, of the
READ best by word overlap, whose embedding is nearest the question's, and answers when that
similarity reaches `at`, the similarity under which `declines` of NQ's unanswerable training
questions fall (`python -m bench.reader files`; `reader.json`'s "files"), or when the reader
answers with that same sentence as its lead (`extractive.nearest_first`). Without the extra,
or with any source from the web, or for a question asking how something works or why (the
threshold was set on questions asking for a fact), the reader decides as before. The grade
stays the reader's: `high` still needs its probability for the lead.

It costs about 15 ms a sentence here (the package's 4-bit C engine), so about 150-200 ms a
run: only runs over the user's files, where no web search is waited for, pay it, and they
compose in a worker thread so that a server's other runs do not wait.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from ..extras import e5_model, installed
from ..types import Source

READ = 10  # sentences compared, the best by word overlap first
WEIGHTS = "reader.json"
# A question asking how something works or why: its threshold was set on NQ questions, which
# ask for a fact (6 of NQ's 1,000 dev questions ask this way); the reader decides these.
EXPLAINS = re.compile(
    r"^\W*(?:how\s+(?:does|do|did|is|are|was|were|can|could|should|would|will|to)|why|explain"
    r"|describe|in what way)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Nearest:
    index: int  # of the sentence nearest the question, in the texts given
    similarity: float  # their embeddings' cosine
    answers: bool  # the similarity reaches the threshold


def own_files(sources: Sequence[Source]) -> bool:
    """Every kept source is a local file: `--include`, a knowledge base, an upload."""
    return bool(sources) and all(s.url.startswith("file:") for s in sources)


def nearest(question: str, texts: Sequence[str]) -> Nearest | None:
    """The sentence of `texts` nearest `question` by e5-small, and whether it answers; None
    without the `embed` extra or a threshold, with no text, or for a question asking how or
    why (EXPLAINS)."""
    if not texts or EXPLAINS.search(question):
        return None  # before loading the model: a how or why question never pays for it
    model, at = _model(), _threshold()
    if model is None or at is None:
        return None
    with _RUNNING:  # one handle into the C engine, shared by the process's runs
        similarities = model.passage(list(texts)) @ model.query(question)
    best = int(similarities.argmax())
    similarity = float(similarities[best])
    return Nearest(best, similarity, similarity >= at)


def active() -> bool:
    """Whether runs over the user's own files are read this way here (loads the model)."""
    return _model() is not None and _threshold() is not None


@cache
def available() -> bool:
    """Whether they may be, without loading the model: the extra is installed and a threshold
    ships. A run over files asking how or why never loads it."""
    return installed("embed") and _threshold() is not None


_RUNNING = threading.Lock()


@cache
def _model() -> Any | None:
    if not installed("embed"):
        return None
    try:
        return e5_model()
    except (ImportError, OSError, RuntimeError):  # a broken wheel: the reader reads the files
        return None


@cache
def _threshold() -> float | None:
    text = resources.files(__package__).joinpath(WEIGHTS).read_text(encoding="utf-8")
    files = json.loads(text).get("files")
    return float(files["at"]) if files else None
