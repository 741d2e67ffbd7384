"""The fault matrix: each family of hostile page, served by the loopback test web next to one
good page, read by the real `sleuth` entry point in a memory-limited child process.

For every case a run must: end by itself within its limits (never need the wall-clock kill),
print an answer from the good page, skip each bad page with a typed cause, and keep every
process of the run under the stated peak memory. The fast cases run in `make test`; `make soak`
repeats them with the long cases and writes the figures to bench/results/.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from tests.faults.harness import Ran, run_limited
from tests.testweb import bombs, problems
from tests.testweb.server import TestWeb
from tests.testweb.topic_audit import CLOUD_DOCS

QUESTION = "audit log retention"
MAX_RUNTIME_S = 10
KILL_AFTER_S = 60.0  # far past the 10 s run limit: only a hang reaches it
CHILD_MEMORY_MB = 4096  # the child's address-space ceiling: a bomb cannot take the machine down


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    bad: Mapping[str, frozenset[str]]  # URL -> the skip causes that are right for it
    peak_mb: int  # the bound every process of the run stays under
    read_ok: frozenset[str] = field(default_factory=frozenset)  # bad URLs that may be read


def causes(*names: str) -> frozenset[str]:
    return frozenset(names)


EXTRACTION = causes("extraction", "deadline")  # killed by the sandbox, or cut by the read deadline
SLOW = causes("deadline", "timeout")

CASES = {
    "pdf-inflate-bomb": Case("pdf-inflate-bomb", {bombs.PDF_BOMB_URL: EXTRACTION}, peak_mb=1024),
    "tiny-paragraphs": Case(
        "tiny-paragraphs",
        {bombs.TINY_PARAGRAPHS_URL: EXTRACTION},
        peak_mb=600,
        read_ok=frozenset({bombs.TINY_PARAGRAPHS_URL}),
    ),
    "huge-pages": Case(
        "huge-pages",
        {url: EXTRACTION for url in bombs.HUGE_URLS},
        peak_mb=600,
        read_ok=frozenset(bombs.HUGE_URLS),
    ),
    "network": Case(
        "network",
        {
            problems.HANG_URL: SLOW,
            problems.DRIP_URL: SLOW,
            problems.ERROR_URL: causes("http"),
            problems.BINARY_URL: causes("unsupported"),
            # No text over HTTP sends a page to the browser in the default auto mode.
            problems.GZIP_BOMB_URL: causes(
                "no-text", "too-large", "extraction", "deadline", "browser"
            ),
        },
        peak_mb=600,
    ),
}


@dataclass(frozen=True, slots=True)
class Outcome:
    case: Case
    ran: Ran
    skipped: dict[str, str]  # URL -> cause
    read: set[str]
    sources: list[str]


def run_case(case: Case, web: TestWeb, env: Mapping[str, str]) -> Outcome:
    urls = [CLOUD_DOCS.url, *case.bad]
    web.script_search(
        "audit",
        [
            {"url": u, "title": f"Audit log retention {n}", "content": "audit log retention"}
            for n, u in enumerate(urls)
        ],
    )
    args = ["ask", QUESTION, "--search=searxng", "--json", "--no-cache", "--verbose"]
    args += [f"--max-runtime={MAX_RUNTIME_S}s", f"--max-sources={len(urls)}"]
    ran = run_limited(args, env, memory_mb=CHILD_MEMORY_MB, kill_after_s=KILL_AFTER_S)
    skipped, read = _fetch_events(ran.err)
    sources = [s["url"] for s in json.loads(ran.out)["sources"]] if ran.out.strip() else []
    return Outcome(case, ran, skipped, read, sources)


def check(outcome: Outcome) -> None:
    """Every promise of the matrix for one run; a failed one says which and shows stderr."""
    ran, case = outcome.ran, outcome.case
    context = f"{case.name}: exit {ran.code}, {ran.seconds:.1f}s, peak {ran.peak_rss_mb:.0f} MB\n"
    context += ran.err[-3000:]
    assert not ran.killed, "the run hung: " + context
    assert ran.code == 0, context
    assert "Traceback" not in ran.err, context
    assert CLOUD_DOCS.url in outcome.read, "the good page was not read: " + context
    assert CLOUD_DOCS.url in outcome.sources, context
    for url, allowed in case.bad.items():
        if url in outcome.read and url in case.read_ok:
            continue
        assert outcome.skipped.get(url) in allowed, f"{url}: {outcome.skipped.get(url)}; {context}"
    assert ran.peak_rss_mb < case.peak_mb, context


def child_env() -> dict[str, str]:
    return dict(os.environ)


def _fetch_events(err: str) -> tuple[dict[str, str], set[str]]:
    skipped: dict[str, str] = {}
    read: set[str] = set()
    for line in err.splitlines():
        fields = dict(_fields(line))
        if line.startswith("fetch.skipped"):
            skipped[fields.get("url", "")] = fields.get("cause", "")
        elif line.startswith("fetch.done"):
            read.add(fields.get("url", ""))
    return skipped, read


def _fields(line: str) -> list[tuple[str, str]]:
    """`kind a='x' b=2` (the --verbose form) -> [("a", "x"), ("b", "2")]; values are reprs."""
    import ast
    import re

    found = []
    for match in re.finditer(r"(\w+)=('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\S+)", line):
        value = match.group(2)
        with contextlib.suppress(ValueError, SyntaxError):
            value = str(ast.literal_eval(value))
        found.append((match.group(1), value))
    return found
