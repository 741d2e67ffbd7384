"""`sleuth completion` scripts, and completions answered by the real entry point."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sleuth.cli.main import main

SLEUTH = [sys.executable, "-m", "sleuth.cli"]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        code = main(list(args)) or 0
    except SystemExit as done:
        code = int(done.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def complete(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, words: str, cword: int
) -> list[tuple[str, str]]:
    """What click's bash protocol answers: one `type,value` pair per line."""
    monkeypatch.setenv("_SLEUTH_COMPLETE", "bash_complete")
    monkeypatch.setenv("COMP_WORDS", words)
    monkeypatch.setenv("COMP_CWORD", str(cword))
    code, out, err = run(capsys)
    assert code == 0, err
    return [tuple(line.split(",", 1)) for line in out.splitlines()]  # type: ignore[misc]


@pytest.mark.parametrize(
    ("shell", "marks"),
    [
        ("bash", ["_sleuth_completion()", "_SLEUTH_COMPLETE=bash_complete", "complete -o"]),
        ("zsh", ["#compdef sleuth", "_SLEUTH_COMPLETE=zsh_complete", "compdef _sleuth_completion"]),
        ("fish", ["_SLEUTH_COMPLETE=fish_complete", "complete --no-files --command sleuth"]),
    ],
)
def test_script_for_each_shell(
    capsys: pytest.CaptureFixture[str], shell: str, marks: list[str]
) -> None:
    code, out, _ = run(capsys, "completion", shell)
    assert code == 0
    for mark in marks:
        assert mark in out, mark
    assert out.endswith("\n")


def test_unknown_shell_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "completion", "powershell")
    assert (code, out) == (1, "")
    assert "'powershell' is not one of 'bash', 'zsh', 'fish'" in err


def test_help_says_how_to_install(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "completion", "--help")
    assert code == 0
    assert 'eval "$(sleuth completion bash)"' in out
    assert "~/.config/fish/completions/sleuth.fish" in out


def test_command_names_complete(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert complete(capsys, monkeypatch, "sleuth sess", 1) == [("plain", "sessions")]
    assert complete(capsys, monkeypatch, "sleuth co", 1) == [
        ("plain", "completion"),
        ("plain", "config"),
        ("plain", "continue"),
    ]


def test_source_authority_values_complete(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = [("plain", "prefer"), ("plain", "strict"), ("plain", "off")]
    assert complete(capsys, monkeypatch, "sleuth ask Q --source-authority ", 4) == expected
    assert complete(capsys, monkeypatch, "sleuth ask Q --source-authority s", 4) == [expected[1]]


def test_options_complete_after_a_bare_question(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # `sleuth "Q" --source-a<TAB>` goes to the default `ask` command
    assert complete(capsys, monkeypatch, "sleuth Q --source-a", 2) == [
        ("plain", "--source-authority")
    ]


def test_profile_names_complete(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, sleuth_home: Path
) -> None:
    sleuth_home.mkdir(parents=True)
    (sleuth_home / "config.toml").write_text("[profiles.work]\ndeep = 1\n", encoding="utf-8")
    names = [v for _, v in complete(capsys, monkeypatch, "sleuth ask Q --profile ", 4)]
    assert names == ["cheap", "deep", "fast", "strict", "thorough", "work"]
    assert complete(capsys, monkeypatch, "sleuth --profile w", 2) == [("plain", "work")]


def test_a_broken_config_still_completes_builtin_profiles(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, sleuth_home: Path
) -> None:
    sleuth_home.mkdir(parents=True)
    (sleuth_home / "config.toml").write_text("not toml = = =\n", encoding="utf-8")
    assert complete(capsys, monkeypatch, "sleuth ask Q --profile th", 4) == [("plain", "thorough")]


def test_round_trip_through_the_installed_entry_point() -> None:
    env = {**os.environ, "_SLEUTH_COMPLETE": "bash_complete", "COMP_WORDS": "sleuth sess"}
    env["COMP_CWORD"] = "1"
    done = subprocess.run(SLEUTH, env=env, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "plain,sessions\n"), done.stderr


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_sources_the_script_and_completes(tmp_path: Path) -> None:
    """The script, loaded by a real bash, asks the real `sleuth` and fills COMPREPLY."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    launcher = bin_dir / "sleuth"
    launcher.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m sleuth.cli "$@"\n')
    launcher.chmod(0o755)
    script = subprocess.run(
        [*SLEUTH, "completion", "bash"], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    probe = (
        f"{script}\n"
        "COMP_WORDS=(sleuth ask Q --source-authority st); COMP_CWORD=4\n"
        '_sleuth_completion sleuth; printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        ["bash", "--norc", "-c", probe], env=env, capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout) == (0, "strict\n"), done.stderr
