"""A run, then resume, continue, rerun, diff and export on it, offline against the test web
(issue 6 must-show)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import html5lib
import pytest

from sleuth.store import SessionStore, sessions_db_path
from tests.cli.helpers import run
from tests.testweb.server import TestWeb

Q = "How long does Example Cloud keep audit logs by default?"
DOCS = "http://docs.examplecloud.com/security/audit-logs/retention"


def first_run(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    code, out, err = run(["ask", Q, "--search=searxng", "--json", "--tag=audit"], capsys)
    assert code == 0, err
    data: dict[str, object] = json.loads(out)
    assert isinstance(data["session_id"], str)
    return data


def test_resume_rewrites_from_saved_sources_without_searching(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    parent = first_run(capsys)
    testweb_env.reset()
    code, out, err = run(["resume", str(parent["session_id"])[:20], "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert testweb_env.hits == []  # no search, no page read
    assert data["usage"]["searches"] == 0 and data["usage"]["pages_read"] == 0
    assert {s["url"] for s in data["sources"]} <= {s["url"] for s in parent["sources"]}  # type: ignore[union-attr]
    assert "90 days" in data["answer"]
    record = SessionStore(sessions_db_path()).get(data["session_id"])
    assert record.parent_id == parent["session_id"] and "audit" in record.tags


def test_continue_seeds_saved_sources_and_does_not_refetch_them(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    parent = first_run(capsys)
    testweb_env.reset()
    code, out, err = run(
        ["continue", str(parent["session_id"]), "what about Enterprise plans?", "--json"], capsys
    )
    assert code == 0, err
    data = json.loads(out)
    known = {s["url"] for s in parent["sources"] if not s.get("snippet")}  # type: ignore[union-attr]
    assert not any(hit in known for hit in testweb_env.hits)
    assert testweb_env.searches  # it did search again
    record = SessionStore(sessions_db_path()).get(data["session_id"])
    assert record.parent_id == parent["session_id"]


def test_rerun_is_independent_and_prints_the_diff(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    parent = first_run(capsys)
    testweb_env.reset()
    code, _, err = run(["rerun", str(parent["session_id"])], capsys)
    assert code == 0, err
    assert DOCS in testweb_env.hits  # read again, not seeded
    assert "diff " in err and "sources" in err
    sessions = SessionStore(sessions_db_path()).list()
    assert len(sessions) == 2


def test_diff_json_of_two_runs(testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]) -> None:
    a = first_run(capsys)
    code, out, err = run(
        [
            "ask",
            "Does Example Cloud Enterprise extend audit log retention?",
            "--search=searxng",
            "--json",
        ],
        capsys,
    )
    b = json.loads(out)
    code, out, err = run(["diff", str(a["session_id"]), b["session_id"], "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert set(data["sources"]) >= {"added", "removed", "shared"}


def test_narrate_without_an_llm_is_a_clear_error(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    a = first_run(capsys)
    code, _, err = run(["diff", str(a["session_id"]), str(a["session_id"]), "--narrate"], capsys)
    assert code == 1 and "--narrate needs an LLM" in err


def test_export_html_is_valid_and_self_contained(
    testweb_env: TestWeb, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parent = first_run(capsys)
    target = tmp_path / "report.html"
    code, _, err = run(["export", str(parent["session_id"]), f"--out={target}"], capsys)
    assert code == 0, err
    page = target.read_text()
    html5lib.HTMLParser(strict=True).parse(page)
    assert "<script" not in page and "http://docs.examplecloud.com" in page
    assert re.search(r'<sup class="cite"><a href="#src-\d+">', page)


def test_no_sessions_saves_nothing(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["ask", Q, "--search=searxng", "--no-sessions"], capsys)
    assert code == 0 and "session " not in err
    assert len(SessionStore(sessions_db_path()).list()) == 0


def test_the_round_trace_and_plan_are_saved(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    question = "How long does Example Cloud keep audit logs, and how can they be exported?"
    code, out, err = run(["ask", question, "--search=searxng", "--deep=1", "--json"], capsys)
    assert code == 0, err
    record = SessionStore(sessions_db_path()).get(json.loads(out)["session_id"])
    assert record.plan and record.rounds
    first = record.rounds[0]
    assert first["round"] == 1 and first["queries"][0] == question
    assert first["searches"] and first["read"] > 0 and first["sources"] > 0
