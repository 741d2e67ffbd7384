"""`sleuth db check|migrate` on both backends, and `sleuth serve` refusing a schema newer than
it knows (one line, before it listens), and a database URL that is not PostgreSQL's."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from tests.cli.helpers import run


@pytest.fixture
def on_backend(backend: str | None, monkeypatch: pytest.MonkeyPatch) -> str | None:
    if backend is not None:
        monkeypatch.setenv("SLEUTH_DATABASE_URL", backend)
    return backend


def _schemas(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:
    code, out, _err = run(["db", "check", "--json"], capsys)
    return code, json.loads(out)


def test_check_says_behind_then_migrate_makes_it_current(
    on_backend: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    if on_backend is None:
        code, data = _schemas(capsys)
        assert code == 1 and data["database"].startswith("sqlite ")
        assert {s["status"] for s in data["schemas"]} == {"behind"}
    code, out, err = run(["db", "migrate"], capsys)
    assert code == 0, err
    assert "current" in out and " behind" not in out
    code, data = _schemas(capsys)
    assert code == 0
    assert {s["component"] for s in data["schemas"]} >= {"sessions", "service"}
    if on_backend is not None:  # knowledge bases and the UI's settings live there too
        assert {s["component"] for s in data["schemas"]} >= {"kb", "ui"}
    assert all(s["status"] == "current" and s["version"] >= 1 for s in data["schemas"])
    code, out, err = run(["db", "migrate"], capsys)  # again: nothing to do, still current
    assert code == 0 and " behind" not in out


def _make_newer(backend: str | None, home: Path) -> None:
    if backend is None:
        with closing(sqlite3.connect(home / "service.db")) as conn:
            conn.execute("PRAGMA user_version = 42")
        return
    import psycopg

    with psycopg.connect(backend, autocommit=True) as conn:
        conn.execute("UPDATE sleuth_schema SET version = 42 WHERE component = 'service'")


def test_a_newer_schema_fails_check_and_serve_refuses_it_in_one_line(
    on_backend: str | None, sleuth_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["db", "migrate"], capsys)[0] == 0
    _make_newer(on_backend, sleuth_home)
    code, out, err = run(["db", "check"], capsys)
    assert code == 1 and "newer" in out and "upgrade Sleuth" in err
    sleuth = str(Path(sys.executable).parent / "sleuth")
    done = subprocess.run([sleuth, "serve", "--port", "0"], capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert "service schema at version 42, newer than this Sleuth knows" in lines[0]
    assert "Traceback" not in done.stderr


def test_a_database_url_that_is_not_postgresql_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SLEUTH_DATABASE_URL", "mysql://root:secret@db/x")
    code, _out, err = run(["db", "check"], capsys)
    assert code != 0 and "SLEUTH_DATABASE_URL must be a postgresql://" in err
    assert "secret" not in err
