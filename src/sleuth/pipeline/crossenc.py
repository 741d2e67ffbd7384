"""The reader's cross-encoder: MiniLM-L6 fine-tuned to score (question, sentence) pairs.

The model (int8 ONNX) and its vocabulary ship in `models/`; it runs in process on the CPU
through onnxruntime (the `reader` extra). Nothing is downloaded. The tokenizer is BERT's
uncased WordPiece, written here so the run needs only numpy and onnxruntime (checked token for
token against the `tokenizers` implementation when the model was trained: bench/reader_ce.py).
Without the extra, `shipped_encoder()` is None and the reader uses its lexical head. The weights
ship as uint8, exact on every CPU; on one with VNNI they load as int8 (`signed_file`), the
same integers, so the same scores, at half the cost there.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
import unicodedata
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext, suppress
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from ..extras import installed

log = logging.getLogger(__name__)

MODEL = "models/reader-ce.int8.onnx"
VOCAB = "models/vocab.txt"
# The bytes that give MODEL's weights as int8, for a CPU with VNNI (`signed_weights`); the
# training script writes it (training/reader/train_reader_ce.py, `vnni_patch`).
VNNI_PATCH = "models/reader-ce.vnni.json"
VNNI_FLAGS = frozenset({"avx512_vnni", "avx_vnni"})
PAIR_TOKENS = 96  # tokens in a pair: [CLS] question [SEP] title: sentence [SEP]
QUESTION_TOKENS = 40
THREADS = 4  # at most, per batch: a batch of 6 pairs gains little from more
MEMO = 64  # batches remembered


def _punctuation(c: str) -> bool:
    o = ord(c)
    return (
        33 <= o <= 47
        or 58 <= o <= 64
        or 91 <= o <= 96
        or 123 <= o <= 126
        or (unicodedata.category(c).startswith("P"))
    )


def _cjk(o: int) -> bool:
    return (
        0x4E00 <= o <= 0x9FFF
        or 0x3400 <= o <= 0x4DBF
        or 0x20000 <= o <= 0x2CEAF
        or 0xF900 <= o <= 0xFAFF
        or 0x2F800 <= o <= 0x2FA1F
    )


class WordPiece:
    """BERT's uncased tokenizer: clean, split CJK, strip accents, lower-case, split on spaces
    and punctuation, then the longest vocabulary piece first ("##" inside a word)."""

    def __init__(self, vocab: Sequence[str]) -> None:
        self.ids = {word: i for i, word in enumerate(vocab)}
        self.unknown, self.cls, self.sep = self.ids["[UNK]"], self.ids["[CLS]"], self.ids["[SEP]"]
        self.pad = self.ids["[PAD]"]
        self._pieces: dict[str, list[int]] = {}

    def encode(self, text: str) -> list[int]:
        out: list[int] = []
        for word in self._words(text):
            out += self._word(word)
        return out

    def pair(self, question: list[int], text: list[int]) -> tuple[list[int], list[int]]:
        """[CLS] question [SEP] text [SEP], the question capped and the text cut to fit."""
        question = question[:QUESTION_TOKENS]
        text = text[: max(0, PAIR_TOKENS - 3 - len(question))]
        ids = [self.cls, *question, self.sep, *text, self.sep]
        return ids, [0] * (len(question) + 2) + [1] * (len(text) + 1)

    def _words(self, text: str) -> list[str]:
        kept = []
        for c in text:
            category = unicodedata.category(c)
            if c in "\x00\ufffd" or (category.startswith("C") and c not in "\t\n\r"):
                continue
            if c.isspace() or category == "Zs":
                kept.append(" ")
            else:
                kept.append(f" {c} " if _cjk(ord(c)) else c)
        plain = unicodedata.normalize("NFD", "".join(kept))
        plain = "".join(c for c in plain if unicodedata.category(c) != "Mn").lower()
        words: list[str] = []
        for token in plain.split():
            current = ""
            for c in token:
                if _punctuation(c):
                    words += [current, c] if current else [c]
                    current = ""
                else:
                    current += c
            if current:
                words.append(current)
        return words

    def _word(self, word: str) -> list[int]:
        known = self._pieces.get(word)
        if known is not None:
            return known
        pieces: list[int] = []
        start = 0
        while start < len(word) and len(word) <= 100:
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.ids:
                    pieces.append(self.ids[piece])
                    break
                end -= 1
            if end == start:
                pieces = []
                break
            start = end
        pieces = pieces or [self.unknown]
        if len(self._pieces) < 100_000:
            self._pieces[word] = pieces
        return pieces


def cores() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def vnni(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """Whether this CPU has VNNI (AVX-512 VNNI or AVX-VNNI), read from Linux's cpuinfo: there
    onnxruntime multiplies uint8 activations by int8 weights exactly, in 32 bits. Without it
    (AVX2 only) that product passes through 16 bits and saturates, so the weights ship as
    uint8, which is exact everywhere but about half as fast here. Elsewhere, False."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    flags = next((line for line in text.splitlines() if line.startswith("flags")), "")
    return bool(VNNI_FLAGS & set(flags.split()))


def signed_weights(model: Path, patch: Path) -> Any:
    """The model file's bytes (a numpy array) with its weights as int8, the same integers as
    the shipped uint8 ones, so the same scores: `patch`'s byte ranges flipped, the file checked
    by checksum before and the result after. None when the patch is missing or does not fit."""
    try:
        spec = json.loads(patch.read_text(encoding="utf-8"))
        import numpy as np

        data = np.fromfile(model, dtype=np.uint8)
    except (OSError, ValueError):
        return None
    if not isinstance(spec, dict) or zlib.crc32(data.data) != spec.get("from_crc32"):
        return None
    try:
        for start, end, flip in spec["ranges"]:
            data[start:end] ^= flip
    except (KeyError, TypeError, ValueError):
        return None
    return data if zlib.crc32(data.data) == spec.get("crc32") else None


@contextmanager
def signed_file(model: Path, patch: Path) -> Iterator[Path | None]:
    """`signed_weights` in a private temporary file for onnxruntime to load by path, removed
    on exit (the session keeps what it read): handed the bytes instead, onnxruntime would keep
    a second copy of the model for the life of the process. None when there are none, or no
    temporary file can be written (the shipped weights load then)."""
    data = signed_weights(model, patch)
    name = None if data is None else _written(data)
    del data
    if name is None:
        yield None
        return
    try:
        yield Path(name)
    finally:
        with suppress(FileNotFoundError):
            os.unlink(name)


def _written(data: Any) -> str | None:
    try:
        fd, name = tempfile.mkstemp(prefix="sleuth-reader-", suffix=".onnx")
    except OSError:
        return None
    try:
        with os.fdopen(fd, "wb") as out:
            data.tofile(out)
    except OSError:
        os.unlink(name)
        return None
    return name


class CrossEncoder:
    """Scores (question, "title: sentence") pairs with the ONNX model: logits, higher likelier
    to answer.

    A batch runs on up to `threads` cores (all of them, up to `THREADS`, by default): a quick
    run waits for its one batch, and on 2 cores two threads halve that wait (a batch of 6: 60
    to 33 ms, the same CPU time, scores identical to the bit). Idle threads sleep rather than
    spin, so a server's other work keeps the cores. At most `parallel` batches run at once
    (the cores each batch's threads leave free, at least one); other callers wait. onnxruntime
    keeps the memory of the busiest moment for the life of the session, about 13 MB a batch in
    flight: 24 runs scoring at once on 2 cores grew the process by 320 MB and kept it, gated
    they grew it by 6 MB, and more at once would not have finished sooner.
    """

    def __init__(
        self,
        model: Path,
        vocab: Path,
        threads: int | None = None,
        parallel: int | None = None,
        signed: bool = False,
    ) -> None:
        import numpy as np
        import onnxruntime as ort

        threads = threads or min(THREADS, cores())
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._np = np
        self.signed = signed  # the weights' int8 form (`signed_file`), not the shipped uint8
        self._session: Any = ort.InferenceSession(
            str(model), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self.tokens = WordPiece(vocab.read_text(encoding="utf-8").splitlines())
        self._running = threading.BoundedSemaphore(parallel or max(1, cores() // threads))

    def score(self, question: str, texts: Sequence[str], titles: Sequence[str]) -> list[float]:
        """The batch's logits. The last few batches are remembered: the grade reads a quoted
        lead in the batch the writer read it in (`Reader.lead_chance`), at no second cost."""
        if not texts:
            return []
        return list(self._batch(question, tuple(texts), tuple(titles)))

    @lru_cache(maxsize=MEMO)  # noqa: B019 - one shipped encoder, kept for the process
    def _batch(
        self, question: str, texts: tuple[str, ...], titles: tuple[str, ...]
    ) -> tuple[float, ...]:
        np = self._np
        asked = self.tokens.encode(question)
        pairs = [
            self.tokens.pair(asked, self.tokens.encode(f"{title}: {text}" if title else text))
            for text, title in zip(texts, titles, strict=True)
        ]
        width = max(len(ids) for ids, _ in pairs)
        ids = np.full((len(pairs), width), self.tokens.pad, dtype=np.int64)
        mask = np.zeros((len(pairs), width), dtype=np.int64)
        types = np.zeros((len(pairs), width), dtype=np.int64)
        for i, (row, kinds) in enumerate(pairs):
            ids[i, : len(row)], mask[i, : len(row)], types[i, : len(kinds)] = row, 1, kinds
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        with self._running:
            (logits,) = self._session.run(None, feed)
        return tuple(float(v) for v in logits.reshape(-1))


@cache
def shipped_encoder() -> CrossEncoder | None:
    """The packaged cross-encoder, or None without the `reader` extra, or when it is installed
    but does not load here (onnxruntime's library, a damaged model file): the reader then uses
    its lexical head, says so in the log, and `sleuth doctor` says why (`load_problem`)."""
    if not installed("reader"):
        return None
    root = resources.files(__package__)
    model, vocab = Path(str(root.joinpath(MODEL))), Path(str(root.joinpath(VOCAB)))
    if not model.is_file():
        return None
    try:
        patch = Path(str(root.joinpath(VNNI_PATCH)))
        with signed_file(model, patch) if vnni() else nullcontext() as signed:
            return CrossEncoder(signed or model, vocab, signed=signed is not None)
    except (ImportError, OSError, RuntimeError) as exc:  # onnxruntime's own errors included
        _PROBLEMS.append(f"{type(exc).__name__}: {exc}")
        log.warning("the reader's cross-encoder did not load (%s): the lexical head reads", exc)
        return None


_PROBLEMS: list[str] = []


def load_problem() -> str | None:
    """Why the installed cross-encoder did not load, if it did not."""
    return _PROBLEMS[-1] if _PROBLEMS else None
