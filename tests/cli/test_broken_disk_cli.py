"""Through the real entry point (issue 12, items 4-7): a broken disk never costs the answer,
parallel first runs all save, and hostile local files (config, schema) end in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from sleuth.store import SessionStore
from tests.cli.helpers import run
from tests.llm.fake_servers import FakeLLMServer, Reply
from tests.testweb.server import TestWeb

NOTE = (
    "# Audit logs\n\nExample Cloud keeps audit logs for ninety days by default. Enterprise "
    "customers can extend retention to one year from the security settings page.\n"
)
GARBAGE = bytes(range(256)) * 40


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    path = tmp_path / "notes.md"
    path.write_text(NOTE)
    return path


def ask(notes: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    return run(
        ["ask", "how long are audit logs kept", "--search=none", f"--include={notes}"], capsys
    )


def garbage(home: Path, name: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / name).write_bytes(GARBAGE)


def directory(home: Path, name: str) -> None:
    (home / name).mkdir(parents=True)


def dev_null(home: Path, name: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / name).symlink_to("/dev/null")


BREAKS: dict[str, Callable[[Path, str], None]] = {
    "garbage": garbage,
    "directory": directory,
    "dev-null": dev_null,
}


@pytest.mark.parametrize("name", ["sessions.db", "cache.db"])
@pytest.mark.parametrize("how", sorted(BREAKS))
def test_a_broken_database_costs_one_line_never_the_answer(
    name: str,
    how: str,
    sleuth_home: Path,
    notes: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    BREAKS[how](sleuth_home, name)
    code, out, err = ask(notes, capsys)
    assert code == 0, err
    assert "ninety days" in out and "## Sources" in out
    assert "Traceback" not in err
    said = [line for line in err.splitlines() if name in line]
    assert len(said) == 1, err
    if how == "garbage":
        assert "moved it to" in said[0]
        assert (sleuth_home / name).exists()
        [aside] = sleuth_home.glob(f"{name}.corrupt-*")
        assert aside.read_bytes() == GARBAGE
    else:
        assert "not a database file" in said[0]


def test_an_unwritable_home_still_prints_the_answer(
    tmp_path: Path, notes: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "blocked").write_text("a file where SLEUTH_HOME's parent should be")
    monkeypatch.setenv("SLEUTH_HOME", str(tmp_path / "blocked" / "home"))
    code, out, err = ask(notes, capsys)
    assert code == 0, err
    assert "ninety days" in out and "Traceback" not in err
    assert "the session was not saved" in err and "page cache unavailable" in err
    assert err.index("confidence ·") < err.index("the session was not saved")  # answer first


def test_sessions_ls_on_a_garbage_file_moves_it_aside_and_lists_nothing(
    sleuth_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    garbage(sleuth_home, "sessions.db")
    code, _out, err = run(["sessions", "ls"], capsys)
    assert code == 0, err
    assert "moved it to" in err and "Traceback" not in err


def test_sessions_ls_on_a_directory_is_one_line(
    sleuth_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory(sleuth_home, "sessions.db")
    code, out, err = run(["sessions", "ls"], capsys)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "is a directory, not a database file" in err


@pytest.mark.timeout(120)
def test_parallel_first_runs_all_print_and_all_save(sleuth_home: Path, notes: Path) -> None:
    """1 of 48 parallel `ask` runs on a new home lost its answer; 8 here, the 48 in soak."""
    args = [sys.executable, "-m", "sleuth.cli", "ask", "how long are audit logs kept"]
    args += ["--search=none", f"--include={notes}"]
    children = [
        subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(8)
    ]
    outputs = [child.communicate(timeout=100) for child in children]
    for child, (out, err) in zip(children, outputs, strict=True):
        assert child.returncode == 0 and "ninety days" in out, err
        assert "not saved" not in err
    assert len(SessionStore(sleuth_home / "sessions.db").list()) == 8


# -- item 6: config.toml and --schema are read only if they are regular files ------------------


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "directory"])
def test_a_config_file_that_is_not_a_file_is_one_line(
    kind: str, sleuth_home: Path, notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sleuth_home.mkdir(parents=True)
    config = sleuth_home / "config.toml"
    if kind == "fifo":
        os.mkfifo(config)
    elif kind == "dev-zero":
        config.symlink_to("/dev/zero")  # was killed at 24 GB
    else:
        config.mkdir()
    code, out, err = ask(notes, capsys)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "config error in" in err and "not a regular file" in err


def test_a_deeply_nested_config_is_one_line(
    sleuth_home: Path, notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sleuth_home.mkdir(parents=True)
    (sleuth_home / "config.toml").write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    code, _out, err = ask(notes, capsys)
    assert code == 1 and err.count("\n") == 1 and "nested too deeply" in err


@pytest.mark.timeout(60)
def test_a_fifo_schema_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "schema.json"
    os.mkfifo(fifo)
    code, _out, err = run(["ask", "q", "--search=none", f"--schema={fifo}"], capsys)
    assert code == 1 and err.count("\n") == 1 and "named pipe" in err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"type": "object", "a": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
        ("binary", "not UTF-8"),
        (
            json.dumps({"type": "object", "properties": {"a": {"$ref": "http://127.0.0.1:9/x"}}}),
            "points outside it",
        ),
        (
            json.dumps({"type": "object", "$defs": {"x": {"$ref": "other.json#/y"}}}),
            "points outside it",
        ),
        ("", "is not JSON"),
    ],
)
def test_hostile_schemas_are_one_line(
    content: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = tmp_path / "s.json"
    schema.write_bytes(b"\x00\xff\xfe\x81" * 64 if content == "binary" else content.encode())
    code, out, err = run(["ask", "q", "--search=none", f"--schema={schema}"], capsys)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and message in err, err


def test_a_schema_nested_past_the_bound_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    node: dict[str, object] = {"type": "string"}
    for _ in range(40):
        node = {"type": "object", "properties": {"x": node}}
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps(node))
    code, _, err = run(["ask", "q", "--search=none", f"--schema={schema}"], capsys)
    assert code == 1 and "nested more than 32 levels" in err


def test_a_self_referencing_schema_is_a_validation_error_not_a_crash(
    testweb_env: TestWeb, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = FakeLLMServer("openai").start()
    try:
        server.script(*[Reply(chunks=['{"days": 90}']) for _ in range(3)])
        schema = tmp_path / "s.json"
        schema.write_text(json.dumps({"type": "object", "$ref": "#"}))
        code, _out, err = run(
            [
                "ask",
                "How long does Example Cloud keep audit logs by default?",
                "--search=searxng",
                f"--schema={schema}",
                f"--base-url={server.url}",
                "--api-key=k",
                "--model=gpt-4o-mini",
            ],
            capsys,
        )
    finally:
        server.stop()
    assert code == 1 and "Traceback" not in err and "RecursionError" not in err
    assert "refers to itself" in err
