"""`sleuth new-backend NAME FOLDER` writes a search backend plugin whose recorded-response test
passes as written and which registers through the `sleuth.plugins` entry point like any
plugin; it refuses names in use or not identifiers, and never replaces a file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import sleuth.registry
from tests.cli.helpers import run

SRC = Path(__file__).parents[2] / "src"


def test_new_backend_writes_a_plugin_that_passes_its_test_and_registers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "sleuth-acme"
    code, out, err = run(["new-backend", "acme", str(folder)], capsys)
    assert code == 0, err
    assert {Path(line).relative_to(folder).as_posix() for line in out.split()} == {
        "pyproject.toml", "sleuth_acme.py", "tests/test_acme.py", "tests/recorded/search.json",
        "README.md",
    }  # fmt: skip
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), str(folder)])}
    tested = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=folder, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert tested.returncode == 0 and "5 passed" in tested.stdout, tested.stdout + tested.stderr
    assert 'acme = "sleuth_acme:register"' in (folder / "pyproject.toml").read_text()
    # Installed, its entry point is what Sleuth loads: the same as `pip install -e` leaves.
    dist = tmp_path / "sleuth_acme-0.1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: sleuth-acme\nVersion: 0.1.0\n")
    (dist / "entry_points.txt").write_text("[sleuth.plugins]\nacme = sleuth_acme:register\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.setattr(sleuth.registry, "_loaded", None)
    regs = sleuth.registry.registries()
    assert "acme" in regs.search and not regs.search.broken
    assert regs.search.get("acme").needs == "SLEUTH_ACME_URL"


def test_new_backend_refuses_bad_names_and_never_replaces_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "plugin"
    folder.mkdir()
    (folder / "README.md").write_text("mine")
    code, _, err = run(["new-backend", "acme", str(folder)], capsys)
    assert code == 1 and "not replacing existing files" in err and "README.md" in err
    assert (folder / "README.md").read_text() == "mine" and list(folder.iterdir()) == [
        folder / "README.md"
    ]
    for name, why in (("brave", "already exists"), ("Bad-Name", "lowercase"), ("class", "")):
        code, _, err = run(["new-backend", name, str(tmp_path / name)], capsys)
        assert code == 1 and why in err and not (tmp_path / name).exists(), err
