"""`make test` leaves the slow suites to `make test-all` but still covers every module: run last
in a whole `make test` run (tests/buckets.py puts it there), this checks that each module of
src/sleuth was imported by the tests before it, in the test process or in a subprocess one of
them started (tests/netguard/sitecustomize.py lists those)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.buckets import FAST, imported_by_subprocesses

ROOT = Path(__file__).parents[2]
SRC = ROOT / "src"


def every_module() -> set[str]:
    names = set()
    for path in (SRC / "sleuth").rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        names.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def whole_fast_run(config: pytest.Config) -> bool:
    """This session is `make test` over the whole suite: the fast selection, no -k, no subset."""
    args = {Path(a).resolve() for a in config.args}
    return (
        config.getoption("markexpr") == FAST
        and not config.getoption("keyword")
        and args <= {ROOT / "tests", ROOT}
    )


def test_every_module_is_imported(request: pytest.FixtureRequest) -> None:
    if not whole_fast_run(request.config):
        pytest.skip("checks what a whole `make test` run imported; run `make test`")
    if request.session.testsfailed:
        pytest.skip("an earlier test failed, so later imports may be missing")
    missing = sorted(every_module() - set(sys.modules) - imported_by_subprocesses())
    assert not missing, (
        "no test `make test` runs imports these (tests/buckets.py made all theirs slow): "
        + ", ".join(missing)
    )
