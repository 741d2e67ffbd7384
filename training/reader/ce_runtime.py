"""Runtime scorer for the Sleuth reader cross-encoder (int8 ONNX).

Needs only numpy + onnxruntime. Contains a pure-Python BERT uncased WordPiece
tokenizer (checked against transformers' BertTokenizerFast for this vocab).

`CrossEncoder.score` returns raw logits (higher = more likely the sentence
answers the question); apply a sigmoid for a probability.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import numpy as np

MAX_LEN = 96  # total tokens incl. [CLS] q [SEP] b [SEP]
MAX_Q = 40  # question tokens kept (segment A)


def _is_ws(c: str) -> bool:
    return c in " \t\n\r" or unicodedata.category(c) == "Zs"


def _is_ctrl(c: str) -> bool:
    return c not in "\t\n\r" and unicodedata.category(c).startswith("C")


def _is_punct(c: str) -> bool:
    o = ord(c)
    if 33 <= o <= 47 or 58 <= o <= 64 or 91 <= o <= 96 or 123 <= o <= 126:
        return True
    return unicodedata.category(c).startswith("P")


def _is_cjk(o: int) -> bool:
    return (0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF or 0x20000 <= o <= 0x2A6DF
            or 0x2A700 <= o <= 0x2B73F or 0x2B740 <= o <= 0x2B81F or 0x2B820 <= o <= 0x2CEAF
            or 0xF900 <= o <= 0xFAFF or 0x2F800 <= o <= 0x2FA1F)


class WordPiece:
    """BERT uncased tokenizer: clean, CJK split, strip accents, lowercase,
    split on whitespace/punctuation, then greedy longest-match WordPiece."""

    def __init__(self, vocab_path: str) -> None:
        with open(vocab_path, encoding="utf-8") as f:
            self.vocab: dict[str, int] = {w.rstrip("\n"): i for i, w in enumerate(f)}
        self.unk = self.vocab["[UNK]"]
        self.cls = self.vocab["[CLS]"]
        self.sep = self.vocab["[SEP]"]
        self.pad = self.vocab["[PAD]"]
        self._cache: dict[str, list[int]] = {}

    def _normalize(self, text: str) -> str:
        out = []
        for c in text:
            o = ord(c)
            if o == 0 or o == 0xFFFD or _is_ctrl(c):
                continue
            if _is_ws(c):
                out.append(" ")
            elif _is_cjk(o):
                out.append(f" {c} ")
            else:
                out.append(c)
        text = unicodedata.normalize("NFD", "".join(out))
        text = "".join(c for c in text if unicodedata.category(c) != "Mn")
        return text.lower()

    def _words(self, text: str) -> list[str]:
        words: list[str] = []
        for tok in self._normalize(text).split():
            cur = ""
            for c in tok:
                if _is_punct(c):
                    if cur:
                        words.append(cur)
                        cur = ""
                    words.append(c)
                else:
                    cur += c
            if cur:
                words.append(cur)
        return words

    def _wordpiece(self, word: str) -> list[int]:
        hit = self._cache.get(word)
        if hit is not None:
            return hit
        ids: list[int] = []
        if len(word) > 100:
            ids = [self.unk]
        else:
            start = 0
            while start < len(word):
                end = len(word)
                cur = None
                while start < end:
                    piece = word[start:end] if start == 0 else "##" + word[start:end]
                    if piece in self.vocab:
                        cur = self.vocab[piece]
                        break
                    end -= 1
                if cur is None:
                    ids = [self.unk]
                    break
                ids.append(cur)
                start = end
        if len(self._cache) < 200_000:
            self._cache[word] = ids
        return ids

    def encode(self, text: str) -> list[int]:
        """Token ids without special tokens."""
        ids: list[int] = []
        for w in self._words(text):
            ids.extend(self._wordpiece(w))
        return ids

    def pair(self, a: list[int], b: list[int], max_len: int = MAX_LEN,
             max_a: int = MAX_Q) -> tuple[list[int], list[int]]:
        """[CLS] a [SEP] b [SEP] with a capped at max_a and b cut to fit."""
        a = a[:max_a]
        b = b[: max(0, max_len - 3 - len(a))]
        ids = [self.cls, *a, self.sep, *b, self.sep]
        types = [0] * (len(a) + 2) + [1] * (len(b) + 1)
        return ids, types


def segment_b(sentence: str, title: str) -> str:
    """Text of segment B as used in training."""
    return f"{title}: {sentence}" if title else sentence


def batch_arrays(pairs: Sequence[tuple[list[int], list[int]]], pad: int = 0
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pad to the longest pair; returns input_ids, attention_mask, token_type_ids (int64)."""
    n = max(len(p[0]) for p in pairs)
    ids = np.full((len(pairs), n), pad, dtype=np.int64)
    mask = np.zeros((len(pairs), n), dtype=np.int64)
    types = np.zeros((len(pairs), n), dtype=np.int64)
    for i, (x, t) in enumerate(pairs):
        ids[i, : len(x)] = x
        mask[i, : len(x)] = 1
        types[i, : len(t)] = t
    return ids, mask, types


class CrossEncoder:
    """Scores (question, sentence) pairs; returns logits (sigmoid -> probability)."""

    def __init__(self, model_path: str, vocab_path: str, threads: int = 1,
                 max_len: int = MAX_LEN) -> None:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(model_path, sess_options=opts,
                                            providers=["CPUExecutionProvider"])
        self.tok = WordPiece(vocab_path)
        self.max_len = max_len

    def score(self, question: str, sentences: Sequence[str],
              titles: Sequence[str]) -> list[float]:
        if not sentences:
            return []
        if len(titles) != len(sentences):
            raise ValueError("titles and sentences differ in length")
        q = self.tok.encode(question)
        pairs = [self.tok.pair(q, self.tok.encode(segment_b(s, t)), self.max_len)
                 for s, t in zip(sentences, titles)]
        ids, mask, types = batch_arrays(pairs, self.tok.pad)
        (logits,) = self.session.run(None, {"input_ids": ids, "attention_mask": mask,
                                            "token_type_ids": types})
        return [float(x) for x in logits.reshape(-1)]
