"""The saved-session commands, through the real `sleuth` entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import html5lib
import pytest

from sleuth.cli.main import main
from sleuth.store import SessionRecord, SessionStore, sessions_db_path
from tests.store.factories import make_record, make_result, make_source

NOW = datetime.now(UTC)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        code = main(list(args)) or 0
    except SystemExit as done:
        code = int(done.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def saved() -> list[SessionRecord]:
    """Three sessions: 40 days old (tagged), 2 days old, and now (different model and sources)."""
    store = SessionStore(sessions_db_path())
    old = make_record(NOW - timedelta(days=40), question="How does SQLite WAL work?",
                      tags=("client-x",))  # fmt: skip
    mid = make_record(NOW - timedelta(days=2), question="Rust async runtimes compared")
    sources = (
        make_source(1, "https://www.sqlite.org/wal.html"),
        make_source(2, "https://n.example/z"),
    )
    new = make_record(
        NOW,
        question="How does SQLite WAL work?",
        result=make_result(answer="WAL appends to a separate file [1].\n", sources=sources,
                           model="model-b"),
        model="model-b",
        tags=("client-x",),
    )  # fmt: skip
    for record in (old, mid, new):
        store.save(record)
    return [old, mid, new]


def test_ls_with_no_sessions(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "sessions", "ls") == (0, "", "no saved sessions\n")


def test_ls_listing(capsys: pytest.CaptureFixture[str], saved: list[SessionRecord]) -> None:
    old, mid, new = saved
    code, out, _ = run(capsys, "sessions", "ls")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == [new.id, mid.id, old.id]
    assert "#client-x" in out.splitlines()[0]
    assert "2 sources · confidence high · $0.0123" in out
    _, out, _ = run(capsys, "sessions", "ls", "sqlite", "--tag", "CLIENT-X", "--json")
    assert [s["id"] for s in json.loads(out)] == [new.id, old.id]
    _, out, err = run(capsys, "sessions", "ls", "nothing like this")
    assert out == ""
    assert "no saved sessions match" in err


def test_ls_says_a_free_run_cost_nothing_and_shows_its_confidence(
    capsys: pytest.CaptureFixture[str],
) -> None:
    free = make_record(NOW, result=make_result(cost=0.0, confidence="low"))
    SessionStore(sessions_db_path()).save(free)
    code, out, _ = run(capsys, "sessions", "ls")
    assert code == 0 and "$0.0000" not in out
    assert out.rstrip().endswith("· confidence low · no model cost")
    _, out, _ = run(capsys, "sessions", "ls", "--json")
    assert json.loads(out)[0]["confidence"] == "low"
    steered = {"depth": "steered", "steering": {"stage": "plan"}}
    SessionStore(sessions_db_path()).save(make_record(NOW, question="Q2", options=steered))
    _, out, _ = run(capsys, "sessions", "ls", "Q2")
    assert "· steered, plan stage ·" in out


def test_tag_untag_and_rm(capsys: pytest.CaptureFixture[str], saved: list[SessionRecord]) -> None:
    _, mid, _ = saved
    code, out, _ = run(capsys, "sessions", "tag", mid.id[:20], "Audit,#q3")
    assert (code, out) == (0, f"{mid.id}  #audit #q3\n")
    _, out, _ = run(capsys, "sessions", "untag", mid.id, "audit")
    assert out == f"{mid.id}  #q3\n"
    code, _, err = run(capsys, "sessions", "rm", mid.id, "1999-01-01")
    assert code == 1
    assert err == "sleuth: no session matches '1999-01-01' (see `sleuth sessions ls`)\n"
    _, out, _ = run(capsys, "sessions", "rm", mid.id)
    assert out == f"removed {mid.id}\n"
    assert mid.id not in run(capsys, "sessions", "ls")[1]


def test_prune(capsys: pytest.CaptureFixture[str], saved: list[SessionRecord]) -> None:
    old = saved[0]
    code, _, err = run(capsys, "sessions", "prune")
    assert code == 1
    assert "needs --older-than and/or --keep" in err
    code, _, err = run(capsys, "sessions", "prune", "--older-than=soon")
    assert code == 1
    assert "30d, 12h" in err
    _, out, err = run(capsys, "sessions", "prune", "--older-than=30d", "--dry-run")
    shown = f"{old.id}  {old.created_at[:10]}  How does SQLite WAL work?"
    assert out == f"would remove {shown}\n"  # what it is, not only its id
    assert len(SessionStore(sessions_db_path()).list()) == 3
    _, out, _ = run(capsys, "sessions", "prune", "--older-than=1d", "--keep=2")
    assert out == f"removed {shown}\n"
    _, out, err = run(capsys, "sessions", "prune", "--older-than=4w")
    assert (out, err) == ("", "nothing to prune\n")


def test_show_and_prefixes(capsys: pytest.CaptureFixture[str], saved: list[SessionRecord]) -> None:
    new = saved[2]
    code, out, _ = run(capsys, "show", new.id[:-2])
    assert code == 0
    assert out.startswith("# How does SQLite WAL work?\n\nWAL appends to a separate file [1].")
    assert "## Sources\n\n1. [Source 1](https://www.sqlite.org/wal.html)" in out
    _, out, _ = run(capsys, "show", new.id, "--json")
    assert json.loads(out)["result"]["session_id"] == new.id
    code, out, err = run(capsys, "show", "20")
    assert code == 1
    assert "matches several sessions" in err
    assert len(err.strip().splitlines()) == 1


def test_diff(capsys: pytest.CaptureFixture[str], saved: list[SessionRecord]) -> None:
    old, _, new = saved
    code, out, _ = run(capsys, "diff", old.id, new.id)
    assert code == 0
    assert out.startswith(f"diff {old.id} → {new.id}\n  40d apart")
    assert "model         gpt-test → model-b" in out
    assert "+ https://n.example/z" in out
    assert "- https://blog.example.net/sqlite" in out
    _, out, _ = run(capsys, "diff", old.id, new.id, "--json")
    data = json.loads(out)
    assert data["sources"]["shared"] == ["https://www.sqlite.org/wal.html"]
    assert data["answer"]["added"] == 1


def test_stats(capsys: pytest.CaptureFixture[str], saved: list[SessionRecord]) -> None:
    code, out, _ = run(capsys, "stats")
    assert code == 0
    assert out.startswith("sessions  3 · ")
    assert "cost      $0.0369" in out
    assert "  model-b  2 calls · 1,000 in · 200 out · $0.0123" in out
    _, out, _ = run(capsys, "stats", "--tag", "client-x", "--json")
    data = json.loads(out)
    assert (data["sessions"], data["sources"]) == (2, 4)
    assert set(data["by_model"]) == {"gpt-test", "model-b"}


def test_export_formats(
    capsys: pytest.CaptureFixture[str], saved: list[SessionRecord], tmp_path: Path
) -> None:
    new = saved[2]
    target = tmp_path / "report.html"
    code, out, _ = run(capsys, "export", new.id, f"--out={target}")
    assert (code, out) == (0, f"{target}\n")
    html5lib.HTMLParser(strict=True).parse(target.read_text("utf-8"))
    _, out, _ = run(capsys, "export", new.id, "--format=md")
    assert out.startswith("# How does SQLite WAL work?")
    md_target = tmp_path / "r.md"
    run(capsys, "export", new.id, f"--out={md_target}")
    assert md_target.read_text("utf-8").startswith("# How")
    _, out, _ = run(capsys, "export", new.id, "--format=json", f"--out={tmp_path / 'x.json'}")
    assert json.loads((tmp_path / "x.json").read_text("utf-8"))["id"] == new.id
    # issue 27: `--out=x.txt` wrote HTML; the suffix decides, and a mismatch is refused
    text_target = tmp_path / "x.txt"
    assert run(capsys, "export", new.id, f"--out={text_target}")[0] == 0
    assert text_target.read_text("utf-8").startswith("# How does SQLite WAL work?")
    code, _, err = run(capsys, "export", new.id, "--format=json", f"--out={tmp_path / 'y.html'}")
    assert code == 1 and "the name says html but the format asked for is json" in err
    code, _, err = run(capsys, "export", new.id, f"--out={tmp_path / 'y.pdf'}")
    assert code == 1 and "no export format is written as .pdf" in err
    assert not (tmp_path / "y.html").exists() and not (tmp_path / "y.pdf").exists()
    _, out, _ = run(capsys, "export", new.id)
    assert out.startswith("<!DOCTYPE html>")
    code, _, err = run(capsys, "export", new.id, "--format=pdf")
    assert code == 1
    assert "pdf" in err


def test_open_without_browser(
    capsys: pytest.CaptureFixture[str], saved: list[SessionRecord], tmp_path: Path
) -> None:
    target = tmp_path / "open.html"
    code, out, _ = run(capsys, "open", saved[2].id, f"--out={target}", "--no-browser")
    assert (code, out) == (0, f"{target.resolve()}\n")
    assert target.read_text("utf-8").startswith("<!DOCTYPE html>")


def test_open_hands_the_file_to_the_browser(saved: list[SessionRecord], tmp_path: Path) -> None:
    # A fresh process, so webbrowser reads $BROWSER; the "browser" records what it was given.
    seen = tmp_path / "seen.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\necho "$1" > {seen}\n')
    browser.chmod(0o755)
    done = subprocess.run(
        [sys.executable, "-c", "from sleuth.cli.main import main; main()", "open", saved[2].id],
        env={**os.environ, "BROWSER": str(browser)},
        capture_output=True,
        text=True,
        check=True,
    )
    path = Path(done.stdout.strip())
    assert path.read_text("utf-8").startswith("<!DOCTYPE html>")
    assert seen.read_text().strip() == path.as_uri()
    path.unlink()


@pytest.mark.parametrize(
    "command",
    [
        ["sessions"], ["sessions", "ls"], ["sessions", "tag"], ["sessions", "untag"],
        ["sessions", "rm"], ["sessions", "prune"], ["show"], ["diff"], ["stats"], ["export"],
        ["open"],
    ],
)  # fmt: skip
def test_every_help_has_an_example(capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    code, out, _ = run(capsys, *command, "--help")
    assert code == 0
    assert "Examples:" in out
    assert "  sleuth " in out
