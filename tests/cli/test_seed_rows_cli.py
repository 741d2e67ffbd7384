"""The smaller seed rows of issue 29 on the command line: --config / SLEUTH_CONFIG (before or
after the command), the cache and sessions folders, --cache-ttl and `--max-cost=$0.50`, each
bad value refused with the flag's name and nothing lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import run
from tests.testweb.server import TestWeb

Q = "How long does Example Cloud keep audit logs by default?"


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    path = tmp_path / "notes.md"
    path.write_text("Example Cloud keeps audit logs for 400 days by default.\n")
    return path


def offline(notes: Path, *more: str) -> list[str]:
    return ["ask", Q, "--search=none", f"--include={notes}", *more]


# -- the config file's path -------------------------------------------------------------------


def test_config_is_chosen_by_flag_before_or_after_the_command_or_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    one, two = tmp_path / "one.toml", tmp_path / "two.toml"
    one.write_text("max_sources = 5\n")
    two.write_text("max_sources = 7\n")
    _, out, _ = run(["--config", str(one), "config", "path"], capsys)
    assert out.strip() == str(one)

    def shown(*args: str) -> tuple[object, str]:
        code, out, err = run([*args, "config", "show", "--json"], capsys)
        assert code == 0, err
        data = json.loads(out)
        return data["settings"]["max_sources"]["value"], data["config_file"]

    assert shown("--config", str(one)) == (5, str(one))
    monkeypatch.setenv("SLEUTH_CONFIG", str(two))
    assert shown() == (7, str(two))
    assert shown(f"--config={one}") == (5, str(one))  # the flag beats the variable


def test_a_missing_config_file_named_anywhere_stops_with_its_name(
    tmp_path: Path, notes: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "typo.toml"
    for args in (
        ["--config", str(missing), *offline(notes)],
        [*offline(notes), f"--config={missing}"],
    ):
        code, out, err = run(args, capsys)
        assert code == 1 and not out and f"--config: no config file at {missing}" in err, err
    monkeypatch.setenv("SLEUTH_CONFIG", str(missing))
    code, out, err = run(offline(notes), capsys)
    assert code == 1 and f"SLEUTH_CONFIG: no config file at {missing}" in err, err
    assert not missing.exists()


# -- max cost in dollars ----------------------------------------------------------------------


def test_max_cost_takes_dollars_and_refuses_other_money_by_flag_name(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(offline(notes, "--max-cost=$0.50", "--json", "--no-sessions"), capsys)
    assert code == 0 and json.loads(out)["citations"], err
    for bad in ("$-1", "abc", "0.5€"):
        code, out, err = run(offline(notes, f"--max-cost={bad}"), capsys)
        assert code == 1 and not out, (bad, err)
        assert "Invalid value for '--max-cost'" in err and "US dollars" in err, err


# -- the cache and sessions folders -----------------------------------------------------------


def test_runs_keep_pages_and_sessions_in_the_folders_named(
    testweb_env: TestWeb,
    tmp_path: Path,
    sleuth_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pages, runs = tmp_path / "pages", tmp_path / "runs"
    args = ["ask", Q, "--search=searxng", f"--cache-dir={pages}", "--cache-ttl=2h"]
    code, out, err = run([*args, f"--sessions-dir={runs}"], capsys)
    assert code == 0 and out, err
    assert (pages / "cache.db").is_file() and (runs / "sessions.db").is_file()
    assert not (sleuth_home / "cache.db").exists() and not (sleuth_home / "sessions.db").exists()
    code, out, err = run(["sessions", "ls"], capsys)
    assert code == 0 and Q not in out and "no saved sessions" in err  # SLEUTH_HOME has none
    monkeypatch.setenv("SLEUTH_SESSIONS_DIR", str(runs))
    code, out, err = run(["sessions", "ls"], capsys)
    assert code == 0 and Q in out, err
    monkeypatch.delenv("SLEUTH_SESSIONS_DIR")
    sleuth_home.mkdir(parents=True, exist_ok=True)
    (sleuth_home / "config.toml").write_text(f'sessions_dir = "{runs}"\n')
    code, out, err = run(["sessions", "ls"], capsys)
    assert code == 0 and Q in out, err  # the config file's folder, as the run used


def test_an_unusable_sessions_folder_loses_no_answer(
    tmp_path: Path, notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("keep me")
    code, out, err = run(offline(notes, f"--sessions-dir={blocker}"), capsys)
    assert code == 0 and "400 days" in out, err
    assert "the session was not saved" in err and str(blocker) in err
    assert blocker.read_text() == "keep me"


@pytest.mark.parametrize("bad", ["abc", "-5", "0"])
def test_a_bad_cache_ttl_names_the_flag(
    bad: str, notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(offline(notes, f"--cache-ttl={bad}"), capsys)
    assert code == 1 and not out and "Invalid value for '--cache-ttl'" in err, err


def test_db_migrate_and_check_use_the_sessions_folder(
    tmp_path: Path,
    sleuth_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    runs = tmp_path / "runs"
    monkeypatch.setenv("SLEUTH_SESSIONS_DIR", str(runs))
    code, _, err = run(["db", "migrate"], capsys)
    assert code == 0, err
    assert (runs / "sessions.db").is_file() and not (sleuth_home / "sessions.db").exists()
    code, out, err = run(["db", "check", "--json"], capsys)
    assert code == 0 and {s["status"] for s in json.loads(out)["schemas"]} == {"current"}, err
