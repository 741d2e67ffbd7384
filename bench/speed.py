"""Speed figures: extraction throughput, in-process and CLI latency, peak RSS of the CLI."""

from __future__ import annotations

import os
import resource
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from sleuth.evaluate.corpus_web import Doc, render_page
from sleuth.evaluate.questions import Question
from sleuth.evaluate.score import percentile
from sleuth.fetch.extract import extract_html
from sleuth.text.passages import bm25_scores, split_passages


@dataclass(frozen=True, slots=True)
class Throughput:
    pages: int
    seconds: float
    passages: int

    @property
    def pages_per_s(self) -> float:
        return self.pages / self.seconds if self.seconds > 0 else 0.0


def extraction_throughput(docs: Sequence[Doc]) -> Throughput:
    """trafilatura extraction + passage split + BM25 ranking, one page after another (one core).

    The HTML is the offline web's article page (nav, aside, footer around the text); each
    page's passages are ranked against its own title, as a run ranks against its question.
    """
    pages = [(d.url, d.title, render_page(d)) for d in docs]
    started = time.process_time()  # CPU time of this process: one core, immune to other load
    count = 0
    for url, title, html in pages:
        extracted = extract_html(html, url)
        chunks = split_passages(extracted.text)
        bm25_scores(title, [c.text for c in chunks])
        count += len(chunks)
    return Throughput(len(pages), time.process_time() - started, count)


@dataclass(frozen=True, slots=True)
class CliRun:
    question: str
    seconds: float
    exit_code: int
    max_rss_mb: float


def cli_runs(
    sleuth: Path, questions: Sequence[Question], env: Mapping[str, str], timeout_s: float = 120.0
) -> list[CliRun]:
    return [_cli_once(sleuth, q.question, env, timeout_s) for q in questions]


def _cli_once(sleuth: Path, question: str, env: Mapping[str, str], timeout_s: float) -> CliRun:
    command = [
        str(sleuth),
        "ask",
        question,
        "--search=searxng",
        "--search-fallback=none",
        "--json",
        "--no-cache",
    ]
    started = time.monotonic()
    proc = subprocess.Popen(
        command, env=dict(env), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        # wait4 gives this child's own rusage: its peak RSS, not that of the offline web.
        _, status, usage = _wait4(proc.pid, timeout_s)
    except TimeoutError:
        proc.kill()
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return CliRun(question, time.monotonic() - started, proc.returncode, usage.ru_maxrss / 1024)


def _wait4(pid: int, timeout_s: float) -> tuple[int, int, resource.struct_rusage]:
    stop = time.monotonic() + timeout_s
    while time.monotonic() < stop:
        found, status, usage = os.wait4(pid, os.WNOHANG)
        if found:
            return found, status, usage
        time.sleep(0.02)
    raise TimeoutError(pid)


def p(values: Sequence[float], q: float) -> float | None:
    return percentile(list(values), q)


def fmt_ms(value: float | None) -> str:
    """A duration in whole milliseconds, "n/a" when there is none."""
    return "n/a" if value is None else f"{value:,.0f} ms"
