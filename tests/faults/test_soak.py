"""The long cases of the fault matrix (`make soak`, never in `make test`): every matrix case
repeated, 48 parallel first runs on a new SLEUTH_HOME, 200 concurrent `sessions ls` on new
homes, and a PDF bomb given to --include. Figures go to the report `make soak` names
(SLEUTH_SOAK_REPORT), committed under bench/results/."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sleuth.store import SessionStore
from tests.faults.harness import run_limited
from tests.faults.matrix import CASES, MAX_RUNTIME_S, check, child_env, run_case
from tests.faults.report import write_section
from tests.testweb.bombs import pdf_bomb
from tests.testweb.server import TestWeb

pytestmark = [pytest.mark.soak, pytest.mark.timeout(1800)]
REPEATS = 3
NOTE = "# Audit logs\n\nExample Cloud keeps audit logs for ninety days by default.\n"
ROWS: list[tuple[str, str, str, str, str]] = []  # case, runs, time, peak, outcome


@pytest.fixture(scope="module", autouse=True)
def report() -> Iterator[None]:
    yield
    target = os.environ.get("SLEUTH_SOAK_REPORT")
    if target and ROWS:
        _write(Path(target))


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_matrix_case_holds_every_time(name: str, testweb_env: TestWeb, tmp_path: Path) -> None:
    seconds, peaks, causes = [], [], set()
    for n in range(REPEATS):
        env = {**child_env(), "SLEUTH_HOME": str(tmp_path / f"home-{n}")}
        outcome = run_case(CASES[name], testweb_env, env)
        check(outcome)
        seconds.append(outcome.ran.seconds)
        peaks.append(outcome.ran.peak_rss_mb)
        causes |= set(outcome.skipped.values())
    ROWS.append(
        (
            f"matrix: {name} (--max-runtime={MAX_RUNTIME_S}s)",
            str(REPEATS),
            f"{min(seconds):.1f}–{max(seconds):.1f} s",
            f"{max(peaks):.0f} MB (bound {CASES[name].peak_mb} MB)",
            "exit 0, good page read; skipped as " + ", ".join(sorted(causes)),
        )
    )


def test_48_parallel_first_runs_all_answer_and_save(tmp_path: Path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text(NOTE)
    env = {**child_env(), "SLEUTH_HOME": str(tmp_path / "home")}
    args = [sys.executable, "-m", "sleuth.cli", "ask", "how long are audit logs kept"]
    args += ["--search=none", f"--include={notes}"]

    def one(_: int) -> tuple[int, str, str]:
        done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=600)
        return done.returncode, done.stdout, done.stderr

    started = time.monotonic()
    with ThreadPoolExecutor(16) as pool:  # 16 at once: the first wave meets a new home
        results = list(pool.map(one, range(48)))
    elapsed = time.monotonic() - started
    failed = [err for code, out, err in results if code != 0 or "ninety days" not in out]
    assert not failed, failed[:2]
    assert not [err for _, _, err in results if "not saved" in err]
    assert len(SessionStore(tmp_path / "home" / "sessions.db").list()) == 48
    ROWS.append(
        ("48 parallel `ask` on a new home", "48", f"{elapsed:.0f} s", "-", "48 answers, 48 saved")
    )


def test_200_concurrent_sessions_ls_on_new_homes(tmp_path: Path) -> None:
    code = "from sleuth.store import SessionStore; SessionStore().list()"
    failures = 0
    started = time.monotonic()
    for home in range(25):
        env = {**child_env(), "SLEUTH_HOME": str(tmp_path / f"home-{home}")}
        children = [
            subprocess.Popen([sys.executable, "-c", code], env=env, stderr=subprocess.PIPE)
            for _ in range(8)
        ]
        failures += sum(1 for c in children if c.wait(timeout=120) != 0)
        for child in children:
            assert child.stderr is not None
            child.stderr.close()
    assert failures == 0
    ROWS.append(
        (
            "200 `sessions ls` (8 at once on each of 25 new homes)",
            "200",
            f"{time.monotonic() - started:.0f} s",
            "-",
            "0 failed (was 17 of 200: 'table sessions already exists')",
        )
    )


def test_a_pdf_bomb_given_to_include_is_one_line(tmp_path: Path) -> None:
    """Skipped with a notice (the knowledge-base rule for an unreadable file); nothing else is
    included, so the run then has no sources (exit 3)."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "report.pdf").write_bytes(pdf_bomb(500 * 1024 * 1024))
    env = {**child_env(), "SLEUTH_HOME": str(tmp_path / "home")}
    ran = run_limited(
        ["ask", "audit logs", "--search=none", f"--include={folder}"], env, kill_after_s=120
    )
    assert not ran.killed and ran.code == 3 and "Traceback" not in ran.err, ran.err
    said = [line for line in ran.err.splitlines() if "report.pdf" in line]
    assert len(said) == 1 and "extraction ran out of memory" in said[0], ran.err
    assert ran.peak_rss_mb < 1024
    ROWS.append(
        (
            "--include of a 500 MB-inflating PDF",
            "1",
            f"{ran.seconds:.1f} s",
            f"{ran.peak_rss_mb:.0f} MB (bound 1024 MB)",
            "skipped with one line: extraction ran out of memory (exit 3: no other source)",
        )
    )


def _write(path: Path) -> None:
    load = os.getloadavg()
    lines = [
        f"# Soak run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        "",
        "`make soak` (tests/faults/test_soak.py) on this machine: "
        f"{os.cpu_count()} cores, load average {load[0]:.1f} at the end. Times are wall clock of"
        " the whole `sleuth` process (start-up included) and vary with load; peaks are the"
        " largest resident size of any process of the run (`wait4` rusage), the extraction"
        " worker included. Each child runs under a 4 GB address-space limit.",
        "",
        "| case | runs | time | peak memory | outcome |",
        "| --- | --- | --- | --- | --- |",
        *(f"| {' | '.join(row)} |" for row in ROWS),
        "",
    ]
    write_section(path, lines)
