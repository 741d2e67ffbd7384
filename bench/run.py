"""`python -m bench.run [--sample N] [--seed S] [--out DIR] [--only scaling]`: Sleuth's report card.

Serves `../shared/bench` with `../shared/tools/offline_web.py` (three servers: plain, 200 ms
per page, 30% of pages hanging), runs every arm over a per-dataset sample of the questions,
measures speed and how more processes scale on PostgreSQL (`bench/scaling.py`), and writes
`bench/results/<date>-<version>.md` (+ `.json`); `--only scaling` measures that section alone
into `<date>-scaling.md`. Figures only: a bench never fails on a number.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sleuth
from sleuth.app.assemble import Settings
from sleuth.evaluate.corpus_web import Doc, load_docs
from sleuth.evaluate.questions import Question, load_questions, sample, with_gold_urls
from sleuth.evaluate.report import summary_json
from sleuth.evaluate.runner import SleuthArm, proxy_environment, run_arm
from sleuth.evaluate.score import Score, summarize
from sleuth.evaluate.unanswerable import Unanswerable, hide_gold

from . import honesty, scaling
from .arms import ARMS, BASELINES, DEEP_ROUNDS, DEFAULT_ARMS, REFERENCE, SLEUTH_ARMS
from .compare import (
    Comparison,
    headline_table,
    paired_json,
    paired_rows,
    paired_table,
    run_stats,
    run_stats_table,
)
from .goals import goals
from .kb import kb_section
from .kb import markdown as kb_markdown
from .kb import to_json as kb_json
from .render import (
    LatencyRow,
    Scaling,
    goals_section,
    quality_table,
    scaling_section,
    speed_section,
)
from .service import measure_service, service_section
from .speed import cli_runs, extraction_throughput
from .startup import run_startup
from .turns import Turns, quick_turns
from .web import OfflineWeb

REPO = Path(__file__).resolve().parents[1]
# (label, dataset in questions.jsonl, questions per --sample unit)
DATASETS = (
    ("NQ", "nq_open_oracle", 2),
    ("PubMedQA", "pubmedqa_pqal", 1),
    ("HotpotQA", "hotpotqa_hipporag_train100", 2),
    ("MuSiQue", "musique_hipporag_train100", 2),
)
MULTI_HOP = ("HotpotQA", "MuSiQue")
HOPS_ARM = "quick+hops"
WEBS = {
    "shared": "`../shared/tools/offline_web.py`",
    "sleuth": "`python -m sleuth.evaluate.corpus_web`",
}
CONDITIONS = (
    ("no injected latency", ()),
    ("200 ms per page", ("--latency", "0.2")),
    ("3 of 10 pages hanging", ("--hang-fraction", "0.3")),
)


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__)
    ap.add_argument(
        "--sample",
        type=int,
        default=30,
        help="questions per dataset (NQ, HotpotQA and MuSiQue get twice as many); default 30",
    )
    ap.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    ap.add_argument(
        "--arms",
        default=",".join(DEFAULT_ARMS),
        help=f"comma list from {', '.join(ARMS)} (default {','.join(DEFAULT_ARMS)})",
    )
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    ap.add_argument(
        "--web",
        choices=("shared", "sleuth"),
        default="shared",
        help="offline web server: ../shared/tools/offline_web.py (default) or "
        "Sleuth's own sleuth.evaluate.corpus_web (same behaviour, larger backlog)",
    )
    ap.add_argument("--latency-questions", type=int, default=20)
    ap.add_argument("--cli-questions", type=int, default=5)
    ap.add_argument("--throughput-pages", type=int, default=300)
    ap.add_argument("--startup-runs", type=int, default=15)
    ap.add_argument("--service-questions", type=int, default=21)
    ap.add_argument("--service-seconds", type=float, default=10.0)
    ap.add_argument("--service-mix-seconds", type=float, default=60.0)
    ap.add_argument(
        "--baseline-src",
        type=Path,
        default=None,
        help="another checkout's src/ whose CLI start-up and in-process quick latency are "
        "timed beside this one (bench/turns.py)",
    )
    ap.add_argument(
        "--kb",
        choices=("bm25", "hybrid", "off"),
        default="bm25",
        help="knowledge-base section (bench/kb.py): ingest, latency and BM25 recall (default); "
        "hybrid also embeds a pooled sub-corpus (slow: 65 min on 2 loaded cores); off skips it",
    )
    ap.add_argument(
        "--only",
        choices=("scaling",),
        default=None,
        help="measure one section alone: scaling writes <date>-scaling.md (+ .json)",
    )
    ap.add_argument(
        "--no-scaling",
        action="store_true",
        help="skip the scaling section (workers, replicas, PostgreSQL against SQLite); "
        "skipped with its reason anyway without PostgreSQL or the queue extra",
    )
    scaling.add_arguments(ap)
    return ap.parse_args(argv)


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def pick_questions(shared: Path, docs: Sequence[Doc], n: int, seed: int) -> list[Question]:
    every = with_gold_urls(
        load_questions(shared / "bench" / "questions.jsonl"), {d.id: d.url for d in docs}
    )
    picked: list[Question] = []
    for label, name, factor in DATASETS:
        pool = [q for q in every if q.dataset == name]
        picked += [replace(q, dataset=label) for q in sample(pool, n * factor, seed)]
    return picked


def settings_for(web: OfflineWeb) -> Settings:
    return Settings(
        search="searxng", search_fallback="none", no_cache=True, env={**os.environ, **web.env()}
    )


def hidden_ids_file(hidden: Unanswerable) -> Path:
    """The ids offline_web.py --hide-ids leaves out, one a line."""
    fd, name = tempfile.mkstemp(prefix="sleuth-bench-hidden-", suffix=".txt")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write("".join(f"{i}\n" for i in sorted(hidden.hidden_ids)))
    return Path(name)


def quality(
    web: OfflineWeb, arms: Sequence[str], questions: Sequence[Question]
) -> dict[str, list[Score]]:
    out: dict[str, list[Score]] = {}
    with proxy_environment(web.env()):
        for arm in arms:
            log(f"arm {arm}: {len(questions)} questions")
            started = time.monotonic()
            out[arm] = asyncio.run(run_arm(ARMS[arm](settings_for(web)), questions, 1))
            log(f"arm {arm}: done in {time.monotonic() - started:.0f} s")
    return out


def latency(web: OfflineWeb, questions: Sequence[Question]) -> list[Score]:
    with proxy_environment(web.env()):
        return asyncio.run(run_arm(SleuthArm(settings_for(web)), questions, 1))


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    unknown = [a for a in arms if a not in ARMS]
    if unknown or not (args.shared / "bench" / "docs.jsonl").exists():
        print(
            f"bench: unknown arms {unknown} or no {args.shared}/bench/docs.jsonl", file=sys.stderr
        )
        return 2
    started = time.monotonic()
    docs = load_docs(args.shared / "bench" / "docs.jsonl")
    questions = pick_questions(args.shared, docs, args.sample, args.seed)
    if args.only == "scaling":
        return scaling_only(args, questions, started)
    hidden = hide_gold(questions, docs)
    hidden_file = hidden_ids_file(hidden)
    tool, corpus = args.shared / "tools" / "offline_web.py", args.shared / "bench" / "docs.jsonl"
    webs = [OfflineWeb(tool, corpus, extra) for _, extra in CONDITIONS]
    webs.append(OfflineWeb(tool, corpus, ("--hide-ids", str(hidden_file))))
    try:
        log("starting four offline webs (indexing 17k pages)")
        for web in webs:
            web.wait_ready()
        scores = quality(webs[0], arms, questions)
        log(f"unanswerable: {len(hidden.questions)} questions, gold pages hidden")
        unanswerable = quality(
            webs[-1], [a for a in honesty.UNANSWERABLE_ARMS if a in arms], hidden.questions
        )
        speed = measure_speed(args, webs[: len(CONDITIONS)], docs, questions)
    finally:
        for web in webs:
            web.stop()
        hidden_file.unlink(missing_ok=True)
    if args.kb != "off":
        log(f"knowledge base section ({args.kb})")
        speed["kb"] = kb_section(args.shared, seed=args.seed, hybrid=args.kb == "hybrid")
    if not args.no_scaling:
        speed["scaling"] = measure_scaling(args, questions)
    report = Report(args, arms, questions, scores, speed, time.monotonic() - started)
    report.unanswerable = unanswerable
    md_path = report.write(args.out)
    print(report.markdown())
    log(f"results written to {md_path}")
    return 0


def measure_scaling(args: argparse.Namespace, questions: Sequence[Question]) -> Scaling:
    log("scaling section: workers, replicas, PostgreSQL against SQLite")
    tool, corpus = args.shared / "tools" / "offline_web.py", args.shared / "bench" / "docs.jsonl"
    texts = [q.question for q in questions]
    return scaling.measured(tool, corpus, texts, scaling.options_from(args), log)


def scaling_only(args: argparse.Namespace, questions: Sequence[Question], started: float) -> int:
    """`--only scaling`: the section alone, in `<date>-scaling.md` (+ `.json`)."""
    figures = measure_scaling(args, questions)
    title = f"# Sleuth bench — scaling — {datetime.now(UTC):%Y-%m-%d} — sleuth {sleuth.__version__}"
    text = (
        f"{title}\n\nQuestions: the bench sample's first ones (seed {args.seed}: NQ); "
        f"section took {time.monotonic() - started:.0f} s.\n\n{scaling_section(figures)}"
    )
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"{datetime.now(UTC):%Y-%m-%d}-scaling.md"
    path.write_text(text, encoding="utf-8")
    path.with_suffix(".json").write_text(
        json.dumps(scaling.to_json(figures), indent=1) + "\n", encoding="utf-8"
    )
    print(text)
    log(f"results written to {path}")
    return 0


def measure_speed(
    args: argparse.Namespace,
    webs: Sequence[OfflineWeb],
    docs: Sequence[Doc],
    questions: Sequence[Question],
) -> dict[str, Any]:
    log(f"throughput: extraction + passages over {args.throughput_pages} pages")
    throughput = extraction_throughput(docs[: args.throughput_pages])
    nq = [q for q in questions if q.dataset == "NQ"]
    sleuth_bin = Path(sys.executable).parent / "sleuth"
    rows = []
    with tempfile.TemporaryDirectory(prefix="sleuth-bench-home-") as home:
        for (label, _), web in zip(CONDITIONS, webs, strict=True):
            log(f"latency: {label}")
            runs = latency(web, nq[: args.latency_questions])
            in_process = [float(r.latency_ms) for r in runs]
            env = {**os.environ, **web.env(), "SLEUTH_HOME": home}
            cli = cli_runs(sleuth_bin, nq[: args.cli_questions], env)
            cut = sum(r.reads_cut > 0 for r in runs)
            rows.append(LatencyRow(label, in_process, cli, cut))
    turns = before_and_after(args, webs[0], nq[: args.latency_questions])
    log("start-up and per-run overhead of the sleuth command")
    startup = run_startup(webs[0].env(), args.startup_runs, args.baseline_src, webs[1].env())
    log("service: each kind of request under wrk, fresh quick runs, the 200-connection mix")
    cli_p50 = statistics.median(c.seconds for c in rows[0].cli) * 1000 if rows[0].cli else None
    service = measure_service(
        webs[0].env(), nq[: args.service_questions], nq[: args.cli_questions],
        seconds=args.service_seconds, mix_seconds=args.service_mix_seconds, cli_p50_ms=cli_p50,
    )  # fmt: skip
    return {
        "throughput": throughput,
        "latency": rows,
        "turns": turns,
        "startup": startup,
        "service": service,
    }


def before_and_after(
    args: argparse.Namespace, web: OfflineWeb, questions: Sequence[Question]
) -> Turns | None:
    """With `--baseline-src`, the in-process quick latency of both checkouts, taking turns."""
    if args.baseline_src is None:
        return None
    log(f"latency: this checkout and {args.baseline_src}, taking turns")
    return quick_turns({**os.environ, **web.env()}, [q.question for q in questions],
                       args.baseline_src)  # fmt: skip


class Report:
    def __init__(
        self,
        args: argparse.Namespace,
        arms: Sequence[str],
        questions: Sequence[Question],
        scores: dict[str, list[Score]],
        speed: dict[str, Any],
        seconds: float,
    ) -> None:
        self.args, self.arms, self.questions, self.seconds = args, arms, questions, seconds
        self.scores, self.speed = scores, speed
        self.unanswerable: dict[str, list[Score]] = {}
        self.rows = {
            label: {arm: [s for s in rows if s.dataset == label] for arm, rows in scores.items()}
            for label, _, _ in DATASETS
        }
        self.summaries = {
            label: {arm: summarize(rows) for arm, rows in by_arm.items()}
            for label, by_arm in self.rows.items()
        }

    def markdown(self) -> str:
        counts = ", ".join(
            f"{label} {sum(q.dataset == label for q in self.questions)}" for label, _, _ in DATASETS
        )
        parts = [
            f"# Sleuth bench — {datetime.now(UTC):%Y-%m-%d} — sleuth {sleuth.__version__}\n",
            f"- questions: {counts} (seed {self.args.seed}; `--sample {self.args.sample}`)",
            f"- arms: {', '.join(self.arms)} — quick = quick mode as shipped; quick+hops = "
            "quick with the heuristic two-step triage on (`Settings(heuristic_hops=True)`); "
            f"deep = `depth=deep, deep_rounds={DEEP_ROUNDS}` (heuristic planner and critic); "
            "baselines: snippets = search snippets only, no reading; top3 = top-3 pages read "
            "whole, no passage selection; all use the extractive writer (no LLM)",
            f"- machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}; "
            f"bench took {self.seconds:.0f} s; offline web: {WEBS[self.args.web]}",
            "- rates: value [Wilson 95% interval] n=questions (citations: n=cited "
            "sentences); PubMedQA's answer is the yes/no/maybe verdict the answer states; "
            "arm − quick: paired difference on the same questions [Newcombe 95% interval], "
            "questions better / worse, exact McNemar p\n",
            "## Side by side (issue 5)\n",
            headline_table(self.summaries, [a for a in DEFAULT_ARMS if a in self.arms]),
        ]
        parts += [self.dataset_section(label) for label, _, _ in DATASETS]
        parts.append(
            "## Speed\n\n"
            + speed_section(self.speed["throughput"], self.speed["latency"], self.speed["turns"])
        )
        parts.append("### Start-up and per-run overhead (issue 9)\n\n" + self.speed["startup"])
        parts.append("### The service (issues 13, 26)\n\n" + service_section(self.speed["service"]))
        if "kb" in self.speed:
            parts.append(kb_markdown(self.speed["kb"]))
        if "scaling" in self.speed:
            parts.append(
                "### Scaling: more processes on one PostgreSQL (issue 16)\n\n"
                + scaling_section(self.speed["scaling"])
            )
        parts.append(
            "## Honesty: calibration (issue 10)\n\n"
            + honesty.section(self.scores, self.unanswerable)
        )
        parts.append("## Goals (issue 10, no LLM)\n\n" + goals_section(honesty.goals(self)))
        parts.append("## Goals (issue 3, no LLM)\n\n" + goals_section(goals(self)))
        return "\n".join(parts)

    def comparisons(self, label: str) -> dict[str, list[Comparison]]:
        """Each Sleuth arm against quick: on all questions, and for multi-hop datasets on
        the questions quick+hops triaged as two-step (where the triage can act at all)."""
        rows = self.rows[label]
        others = [a for a in SLEUTH_ARMS if a != REFERENCE]
        out = {"all questions": paired_rows(rows, REFERENCE, others)}
        if label in MULTI_HOP and HOPS_ARM in rows:
            two_step = {s.id for s in rows[HOPS_ARM] if s.plan == "multi_hop"}
            out[f"the {len(two_step)} questions triaged two-step"] = paired_rows(
                rows, REFERENCE, others, lambda s: s.id in two_step
            )
        return out

    def dataset_section(self, label: str) -> str:
        parts = [
            f"## {label}\n",
            quality_table(self.summaries[label], BASELINES, SLEUTH_ARMS),
        ]
        for subset, comparisons in self.comparisons(label).items():
            if comparisons:
                parts.append(f"Paired against {REFERENCE}, {subset}:\n")
                parts.append(paired_table(comparisons, REFERENCE))
        parts += ["How each arm ran:\n", run_stats_table(self.rows[label])]
        return "\n".join(parts)

    def write(self, out: Path) -> Path:
        out.mkdir(parents=True, exist_ok=True)
        stem = f"{datetime.now(UTC):%Y-%m-%d}-{sleuth.__version__}"
        md_path = out / f"{stem}.md"
        md_path.write_text(self.markdown(), encoding="utf-8")
        (out / f"{stem}.json").write_text(
            json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8"
        )
        return md_path

    def to_json(self) -> dict[str, Any]:
        summary = {
            label: {arm: summary_json(s) for arm, s in arms.items()}
            for label, arms in self.summaries.items()
        }
        speed = self.speed["throughput"]
        return {
            "questions": {label: len(next(iter(r.values()), [])) for label, r in self.rows.items()},
            "summary": summary,
            "paired_vs_quick": {
                label: {k: paired_json(v) for k, v in self.comparisons(label).items()}
                for label in self.rows
            },
            "runs": {
                label: {arm: run_stats(rows) for arm, rows in by_arm.items()}
                for label, by_arm in self.rows.items()
            },
            "calibration": honesty.to_json(self.scores, self.unanswerable),
            "throughput_pages_per_s": speed.pages_per_s,
            "latency": [
                {
                    "condition": r.condition,
                    "in_process_ms": list(r.in_process_ms),
                    "in_process_runs_cut": r.cut_runs,
                    "cli_s": [c.seconds for c in r.cli],
                    "cli_rss_mb": [c.max_rss_mb for c in r.cli],
                }
                for r in self.speed["latency"]
            ],
            "latency_turns": self.speed["turns"].to_json() if self.speed["turns"] else None,
            "service": self.speed["service"].to_json() if self.speed["service"] else None,
            "kb": kb_json(self.speed["kb"]) if "kb" in self.speed else None,
            "scaling": scaling.to_json(self.speed["scaling"]) if "scaling" in self.speed else None,
        }


if __name__ == "__main__":
    sys.exit(main())
