"""Score every train row of a pairs file with one int8 cross-encoder: a teacher's logits, for
`train_reader_ce.py --teacher` (distillation; docs/reader.md, twelfth round).

    python teacher_logits.py PAIRS MODEL.int8.onnx VOCAB OUT.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ce_runtime import CrossEncoder, WordPiece  # noqa: E402
from train_reader_ce import encode_rows, predict_onnx  # noqa: E402


def main() -> None:
    pairs, model, vocab, out = sys.argv[1:5]
    rows = [json.loads(line) for line in open(pairs, encoding="utf-8")]
    train = [r for r in rows if r["split"] == "train"]
    scores = predict_onnx(CrossEncoder(model, vocab, threads=1), train, encode_rows(WordPiece(vocab), train))
    Path(out).write_text(json.dumps([round(s, 5) for s in scores]))
    print(f"{len(scores)} train rows scored -> {out}")


if __name__ == "__main__":
    main()
