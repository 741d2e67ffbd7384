"""Start-up and per-run overhead of the `sleuth` command (issue 9's budget).

Three commands, each run `--runs` times after one warm-up run (so Python's bytecode cache is
written, as it is for an installed package): `sleuth --help`, `sleuth ask` on the offline web
without an LLM, and `sleuth ask` with an instant OpenAI-compatible model on loopback (it answers
every call at once, so what remains is Sleuth's own overhead: SDK import, client set-up, the
two calls' bookkeeping). Wall and CPU time (user + system, from the child's own rusage) are both
reported: CPU time barely moves when other work shares the machine, wall time does.

With `--baseline-src DIR` the same commands also run from another checkout's `src/` (e.g. the
commit before a change) in the same run, so before and after are measured side by side.

Then the two `ask` commands again on a web whose pages take 0.2 s each (`offline_web.py
--latency 0.2`, as pages on the real web do): there the official SDK's import (a few hundred ms
of CPU) runs in a worker thread while the first search and reads wait on the network, so what
a user waits for with an LLM configured is measured, not the import alone (issue 26, item 4).

    python -m bench.startup --runs 15 [--baseline-src /tmp/old/src]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from .web import OfflineWeb

QUESTION = "who wrote the novel moby dick"
SLOW_PAGES_S = 0.2  # the page latency of the second web (offline_web.py --latency)
ASK = ["ask", QUESTION, "--search=searxng", "--search-fallback=none", "--json", "--no-cache"]


@dataclass(frozen=True, slots=True)
class Timing:
    label: str
    wall_s: list[float]
    cpu_s: list[float]
    codes: list[int]

    @property
    def wall_p50(self) -> float:
        return statistics.median(self.wall_s)

    @property
    def cpu_p50(self) -> float:
        return statistics.median(self.cpu_s)


class InstantLLM:
    """An OpenAI-compatible chat endpoint that streams a fixed cited answer immediately."""

    def __init__(self) -> None:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _InstantHandler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> InstantLLM:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


class _InstantHandler(BaseHTTPRequestHandler):
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))) or b"{}")
        prompt = json.dumps(body.get("messages", []))
        text = '{"type": "single"}' if "multi_hop" in prompt else "Herman Melville wrote it [1]."
        chunks: list[dict[str, Any]] = [
            {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
            {"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5}},
        ]
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        for chunk in chunks:
            full = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m"}
            self.wfile.write(f"data: {json.dumps({**full, **chunk})}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")


def command(src: Path | None) -> list[str]:
    """The installed console script, or another checkout's code run by the same Python."""
    if src is None:
        return [str(Path(sys.executable).with_name("sleuth"))]
    code = "import sys; from sleuth.cli.main import main; sys.argv[0] = 'sleuth'; main()"
    return [sys.executable, "-c", code]


def time_command(argv: Sequence[str], env: Mapping[str, str], runs: int) -> Timing:
    walls, cpus, codes = [], [], []
    for i in range(runs + 1):
        started = time.monotonic()
        proc = subprocess.Popen(argv, env=dict(env), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)  # fmt: skip
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - started
        if i == 0:
            continue  # the warm-up run writes the bytecode cache
        walls.append(wall)
        cpus.append(usage.ru_utime + usage.ru_stime)
        codes.append(os.waitstatus_to_exitcode(status))
    return Timing("", walls, cpus, codes)


def measure(web_env: Mapping[str, str], runs: int, src: Path | None, llm_url: str) -> list[Timing]:
    env = {k: v for k, v in {**os.environ, **web_env}.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if src is not None:
        env["PYTHONPATH"] = str(src)
    base = command(src)
    llm = [f"--base-url={llm_url}", "--api-key=bench", "--model=instant"]
    out = []
    with tempfile.TemporaryDirectory(prefix="sleuth-bench-startup-") as home:
        env["SLEUTH_HOME"] = home
        for label, args in (
            ("sleuth --help", ["--help"]),
            ("sleuth ask, no LLM", ASK),
            ("sleuth ask, instant LLM", [*ASK, *llm]),
        ):
            timing = time_command([*base, *args], env, runs)
            out.append(Timing(label, timing.wall_s, timing.cpu_s, timing.codes))
    return out


def startup_section(after: Sequence[Timing], before: Sequence[Timing] | None = None) -> str:
    head = "| command | wall p50 | CPU p50 | n | exit codes |"
    if before:
        head = (
            "| command | before: wall p50 | CPU p50 | after: wall p50 | CPU p50 | n | exit codes |"
        )
    rows = [head, "|" + "---|" * (head.count("|") - 1)]
    for i, t in enumerate(after):
        codes = ",".join(sorted({str(c) for c in t.codes}))
        was = (
            f"{before[i].wall_p50 * 1000:,.0f} ms | {before[i].cpu_p50 * 1000:,.0f} ms | "
            if before
            else ""
        )
        rows.append(
            f"| {t.label} | {was}{t.wall_p50 * 1000:,.0f} ms | {t.cpu_p50 * 1000:,.0f} ms | "
            f"{len(t.wall_s)} | {codes} |"
        )
    gap = after[2].wall_p50 - after[1].wall_p50
    rows.append("")
    rows.append(
        f"The instant-LLM path costs {gap * 1000:+,.0f} ms of wall time over the no-LLM path."
    )
    return "\n".join(rows) + "\n"


def run_startup(
    web_env: Mapping[str, str],
    runs: int,
    baseline: Path | None,
    slow_web_env: Mapping[str, str] | None = None,
) -> str:
    """The section; with `slow_web_env` (a web whose pages take 0.2 s), the `ask` commands
    there too."""
    with InstantLLM() as llm:
        after = measure(web_env, runs, None, llm.url)
        before = measure(web_env, runs, baseline, llm.url) if baseline else None
        slow = measure(slow_web_env, runs, None, llm.url)[1:] if slow_web_env else None
    return startup_section(after, before) + (latency_section(slow) if slow else "")


def latency_section(asks: Sequence[Timing]) -> str:
    """The two `ask` commands on the web with page latency: what the LLM path adds there."""
    rows = [
        "",
        f"With {SLOW_PAGES_S} s per page (the official SDK's import overlaps the reads):",
        "",
        "| command | wall p50 | CPU p50 | n | exit codes |",
        "|---|---|---|---|---|",
    ]
    for t in asks:
        codes = ",".join(sorted({str(c) for c in t.codes}))
        rows.append(f"| {t.label} | {t.wall_p50 * 1000:,.0f} ms | {t.cpu_p50 * 1000:,.0f} ms | "
                    f"{len(t.wall_s)} | {codes} |")  # fmt: skip
    gap = asks[1].wall_p50 - asks[0].wall_p50
    rows += ["", f"There the instant-LLM path costs {gap * 1000:+,.0f} ms of wall time over the "
             "no-LLM path (the budget: +100 ms)."]  # fmt: skip
    return "\n".join(rows) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.startup", description=__doc__)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--baseline-src", type=Path, default=None)
    ap.add_argument("--shared", type=Path, default=Path(__file__).parents[2] / "shared")
    args = ap.parse_args(argv)
    tool, docs = args.shared / "tools" / "offline_web.py", args.shared / "bench" / "docs.jsonl"
    web = OfflineWeb(tool, docs).wait_ready()
    slow = OfflineWeb(tool, docs, ["--latency", str(SLOW_PAGES_S)]).wait_ready()
    try:
        print(run_startup(web.env(), args.runs, args.baseline_src, slow.env()))
    finally:
        web.stop()
        slow.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
