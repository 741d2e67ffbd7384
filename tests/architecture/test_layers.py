"""The dependency rule is written down (pyproject's import-linter contract) and checked by
`make lint`; these tests show the check passes on the tree and fails on a violation."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
LINT = Path(sys.executable).with_name("lint-imports")

pytestmark = pytest.mark.skipif(not LINT.exists(), reason="import-linter is not installed")


def lint(src: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run(
        [str(LINT), "--config", "pyproject.toml", "--no-cache"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_tree_keeps_the_layers(tmp_path: Path) -> None:
    done = lint(ROOT / "src", tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 kept, 0 broken" in done.stdout


def test_a_stage_importing_the_application_breaks_the_contract(tmp_path: Path) -> None:
    src = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "sleuth", src / "sleuth")
    cite = src / "sleuth" / "pipeline" / "cite.py"
    cite.write_text(cite.read_text() + "\nfrom ..app import application  # a violation\n")
    done = lint(src, tmp_path)
    assert done.returncode == 1, done.stdout
    assert "sleuth.pipeline is not allowed to import sleuth.app" in done.stdout


def test_a_face_importing_a_store_breaks_the_contract(tmp_path: Path) -> None:
    src = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "sleuth", src / "sleuth")
    route = src / "sleuth" / "server" / "routes" / "meta.py"
    route.write_text(route.read_text() + "\nfrom ...store import sessions  # a violation\n")
    done = lint(src, tmp_path)
    assert done.returncode == 1, done.stdout
    assert "sleuth.server is not allowed to import sleuth.store" in done.stdout


def test_a_cycle_between_siblings_breaks_the_contract(tmp_path: Path) -> None:
    src = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "sleuth", src / "sleuth")
    cache = src / "sleuth" / "fetch" / "cache.py"
    cache.write_text(cache.read_text() + "\nfrom ..store import page_cache_pg  # a cycle\n")
    done = lint(src, tmp_path)
    assert done.returncode == 1, done.stdout
    assert "No cycles are allowed in sleuth." in done.stdout
