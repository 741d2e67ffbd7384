"""The rule that leaves slow tests to `make test-all` (tests/buckets.py), seen from outside: a
`pytest -m` selection in a child process, as `make test` and `make test-all` make it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.buckets import FAST, SLOW_TESTS

ROOT = Path(__file__).parents[2]


def pytest_child(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_postgres_browser_and_listed_tests_are_slow_and_the_rest_are_not() -> None:
    files = [
        "tests/server/test_ops.py",
        "tests/export/test_screenshot.py",
        "tests/cli/test_first_hour.py",
    ]
    done = pytest_child("--collect-only", "-q", "-m", "slow and not soak", *files)
    assert done.returncode == 0, done.stdout[-2000:]
    slow = {line for line in done.stdout.splitlines() if "::" in line}
    sharing = [n for n in slow if n.startswith(files[0])]
    assert sharing and all("[postgres" in n for n in sharing)  # the SQLite half is fast
    assert any(n.startswith(files[1]) for n in slow)  # the browser mark
    first_hour = {n.split("::")[1] for n in slow if n.startswith(files[2])}
    assert first_hour == set(SLOW_TESTS[files[2]])


def test_a_selection_that_leaves_no_test_is_an_error_not_pytests_exit_5() -> None:
    done = pytest_child("-q", "-m", FAST, "tests/faults/test_matrix.py")
    assert done.returncode == 1, (done.returncode, done.stdout[-2000:])
    assert "no test was selected" in done.stdout and "make test-all" in done.stdout


def test_every_test_named_in_slow_tests_exists() -> None:
    """A renamed test would silently move back into `make test`; its entry must go with it."""
    for path, names in SLOW_TESTS.items():
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        kinds = (ast.FunctionDef, ast.AsyncFunctionDef)
        defined = {n.name for n in ast.walk(tree) if isinstance(n, kinds)}
        assert set(names) <= defined, (path, set(names) - defined)
