"""`sleuth ask --interactive` (issue 17, item 1: the CLI steers a run too): the real entry point
with replies on stdin, the loopback test web and a scripted model."""

from __future__ import annotations

import asyncio
import io
import json
import re
from collections.abc import Iterator

import pytest

from sleuth.app.application import Sleuth
from sleuth.app.steer import Steering
from sleuth.settings import Settings
from tests.app.test_steered_research import Q, steering_model
from tests.cli.helpers import run
from tests.llm.fake_servers import FakeLLMServer
from tests.testweb.server import TestWeb

ASKED = ("Which region do you mean?", "Which plan tier?")  # what steering_model asks
PLANNED = ("Example Cloud audit log retention EU", "audit logs")  # and plans


@pytest.fixture
def llm() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer("openai", responder=steering_model).start()
    yield server
    server.stop()


def replies(monkeypatch: pytest.MonkeyPatch, *lines: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{line}\n" for line in lines)))


def saved(session_id: str) -> Steering:
    async def load() -> Steering:
        async with Sleuth(Settings.from_env()) as app:
            return app.steer_load(session_id)

    return asyncio.run(load())


def model_args(server: FakeLLMServer) -> list[str]:
    return [f"--base-url={server.url}", "--api-key=k", "--model=m", "--search=searxng"]


def test_a_steered_run_from_the_terminal(
    testweb_env: TestWeb,
    llm: FakeLLMServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    replies(
        monkeypatch,
        "the EU",  # first clarifying question
        "",  # second skipped
        "x",  # not a search number: asked again
        "2",  # drop "audit logs"
        "example cloud audit log retention policy",  # add a search
        "",  # done adding
        "audit log export",  # a second round
        "",
        "",  # no third round
        "formal",
        "",
        "auditors",
    )
    code, out, err = run(["ask", "--interactive", Q, "--json", *model_args(llm)], capsys)
    assert code == 0, err
    for question in ASKED:
        assert question in err
    assert "'x' is not a search number" in err
    searched = testweb_env.searches
    assert PLANNED[0] in searched and "example cloud audit log retention policy" in searched
    assert PLANNED[1] not in searched  # dropped from the plan
    assert searched[-1] == "audit log export"  # the second round's suggestion
    data = json.loads(out)  # stdout holds only the report; prompts went to stderr
    assert "90 days" in data["answer"] and "tone: formal; audience: auditors" in data["answer"]
    assert data["citations"]
    calls = len(llm.received)  # every stage's, not the report's alone
    assert data["usage"]["llm"]["calls"] == calls and f"m {calls} calls" in err
    state = saved(data["session_id"])  # each stage saved; the last reopens at its report
    assert state.stage == "done" and state.answers == ("the EU", "")
    assert state.rounds[1] == ("audit log export",)


def test_without_a_model_the_plan_is_kept_with_enter(
    testweb_env: TestWeb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    replies(monkeypatch, "", "", "", "", "", "")  # keep the plan, add nothing, write as is
    code, out, err = run(["ask", "-i", Q, "--search=searxng"], capsys)
    assert code == 0, err
    assert "Plan: the first round searches" in err and "  1. " in err
    assert "[1]" in out and "Drop searches" not in out
    assert "session " in err


def test_enter_at_every_prompt_researches_a_short_question_without_a_model(
    testweb_env: TestWeb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 27, item 1: a question the heuristics cannot split listed an empty plan, and
    Enter looped on "the plan needs at least one search". The plan is the question itself."""
    short = "How do audit logs work?"
    replies(monkeypatch, *[""] * 8)  # keep, add nothing, no second round, no style
    code, out, err = run(["ask", "-i", short, "--search=searxng", "--search-fallback=none"], capsys)
    assert code == 0, err
    assert f"  1. {short}" in err and "needs at least one search" not in err
    assert testweb_env.searches == [short]
    assert re.search(r"\[\d+\]", out) and "Sources" in out


def test_stopped_at_a_prompt_names_the_saved_stage(
    testweb_env: TestWeb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    replies(monkeypatch)  # stdin ends at the first prompt (as Ctrl-D does)
    code, out, err = run(["ask", "-i", Q, "--search=searxng"], capsys)
    assert code != 0 and out == ""
    stopped = re.search(r"saved as session (\S+) at its plan stage", err)
    assert stopped, err
    state = saved(stopped.group(1))
    assert state.stage == "plan" and state.plan and state.question == Q


def test_deep_and_interactive_are_refused_in_one_line(
    testweb_env: TestWeb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    replies(monkeypatch, "")
    code, out, err = run(["ask", "-i", Q, "--deep", "--search=searxng"], capsys)
    assert code == 1 and out == ""
    assert "--interactive steers the rounds itself; drop --deep" in err
    assert len(err.strip().splitlines()) == 1
