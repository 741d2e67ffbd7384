"""Each input that used to end in a traceback now ends in one clear line (issue 12, item 9)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import run
from tests.testweb.server import TestWeb
from tests.testweb.topic_audit import CLOUD_DOCS

NOTE = "# Audit logs\n\nExample Cloud keeps audit logs for ninety days by default.\n"


def one_line(err: str) -> bool:
    return err.count("\n") == 1 and "Traceback" not in err


@pytest.fixture
def session(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    notes = tmp_path / "notes.md"
    notes.write_text(NOTE)
    code, out, err = run(
        ["ask", "how long are audit logs kept", "--search=none", f"--include={notes}", "--json"],
        capsys,
    )
    assert code == 0, err
    return str(json.loads(out)["session_id"])


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("/dev/full", "No space left on device"),
        ("", "is a directory"),
        ("/tmp/" + "a" * 300 + ".md", "File name too long"),
        ("/proc/version", "cannot write /proc/version"),
    ],
)
def test_export_to_a_bad_place_is_one_line(
    session: str, target: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["export", session, "--format=md", f"--out={target}"], capsys)
    assert code == 1 and out == ""
    assert one_line(err) and message in err, err


def test_export_into_a_missing_directory_creates_it(
    session: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "new" / "dir" / "answer.md"
    code, _, err = run(["export", session, f"--out={target}"], capsys)
    assert code == 0, err
    assert "ninety days" in target.read_text()


def test_invalid_utf8_in_a_session_id_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    undecodable = b"\xff\xfe".decode("utf-8", "surrogateescape")  # what Python makes of argv
    code, _, err = run(["show", undecodable], capsys)
    assert code == 1 and one_line(err) and "no session matches" in err


def test_invalid_utf8_in_a_question_still_answers_and_saves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text(NOTE)
    question = "how long are audit logs kept " + b"\xff".decode("utf-8", "surrogateescape")
    code, out, err = run(["ask", question, "--search=none", f"--include={notes}"], capsys)
    assert code == 0, err
    assert "ninety days" in out and "not saved" not in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ask", "q", "--search=none", "--since=99999999999y"], "since"),
        (["sessions", "prune", "--older-than=99999999999999d"], "older-than"),
        (["ask", "q", "--search=none", "--max-cost=nan"], "max-cost"),
    ],
)
def test_absurd_numbers_are_refused_in_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(args, capsys)
    assert code == 1 and out == "" and "Traceback" not in err
    assert message in err


def test_a_search_result_whose_url_is_a_number_is_skipped_alone(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    testweb_env.script_search(
        "audit",
        [
            {"url": 12345, "title": "numeric url", "content": "x", "engine": "x"},
            {"url": None, "title": 7, "content": None, "engine": "x"},
            {"url": CLOUD_DOCS.url, "title": "Audit", "content": "90 days", "engine": "x"},
        ],
    )
    code, out, err = run(["ask", "audit log retention", "--search=searxng", "--json"], capsys)
    assert code == 0, err
    assert [s["url"] for s in json.loads(out)["sources"]] == [CLOUD_DOCS.url]
