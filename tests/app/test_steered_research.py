"""Steered research, the library first (issue 17, item 1): clarifying questions, an editable
plan, rounds with the person's suggestions, a writing request, each stage saved and reopened."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from sleuth.app.application import Sleuth
from sleuth.app.steer import Steering
from sleuth.errors import UsageError
from sleuth.settings import Settings
from tests.llm.fake_servers import FakeLLMServer, Received, Reply
from tests.testweb.server import TestWeb

Q = "How long does Example Cloud keep audit logs by default?"


def steering_model(request: Received) -> Reply:
    """Clarifying questions, then a plan; the writer echoes the style it was asked for."""
    prompt = " ".join(str(m.get("content", "")) for m in request.body["messages"])
    if "clarifying" in prompt or "sharpen a research question" in prompt:
        return Reply(chunks=[json.dumps(["Which region do you mean?", "Which plan tier?"])])
    if "plan web searches" in prompt:
        return Reply(chunks=[json.dumps(["Example Cloud audit log retention EU", "audit logs"])])
    style = re.search(r"The reader asks for this style: (.+)", prompt)
    said = style.group(1).strip() if style else "no style"
    return Reply(chunks=[f"Audit logs are kept for 90 days by default [1]. ({said})"])


@pytest.fixture
def llm() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer("openai", responder=steering_model).start()
    yield server
    server.stop()


async def test_without_a_model_the_plan_is_deterministic_and_editable(
    testweb_env: TestWeb,
) -> None:
    async with Sleuth(Settings.from_env()) as app:
        state = await app.steer(Q, search="searxng", search_fallback="none")
        assert state.stage == "plan" and state.questions == () and state.plan
        edited = app.steer_edit(state, ["example cloud audit log retention policy"])
        first = await app.steer_explore(edited)
        assert "example cloud audit log retention policy" in testweb_env.searches
        assert Q not in testweb_env.searches  # the edited plan is what was searched
        assert first.stage == "explore" and first.sources
        second = await app.steer_explore(first, ["audit log export"])
        assert testweb_env.searches[-1] == "audit log export"
        assert len(second.sources) >= len(first.sources)
        assert second.rounds == (
            ("example cloud audit log retention policy",),
            ("audit log export",),
        )
        done = await app.steer_write(second, "short, for a manager")
        assert done.stage == "done" and done.result is not None
        assert done.result.answer and "[" in done.result.answer and done.result.citations
        reopened = app.steer_load(done.session_id or "")
        assert reopened.stage == "done" and reopened.rounds == second.rounds
        parent = app.sessions.get(done.session_id or "").parent_id
        assert parent == second.session_id  # each stage saved, chained


SHORT = "How do audit logs work?"  # no named entity, too few terms to split: no sub-query


async def test_without_a_model_the_plan_is_the_question_and_its_parts(
    testweb_env: TestWeb,
) -> None:
    """Issue 27, item 1: a short question gave an empty plan, and its first round refused to
    run. Without a model the plan is what a deep run searches: the question, then its parts."""
    async with Sleuth(Settings.from_env()) as app:
        short = await app.steer(SHORT, search="searxng", search_fallback="none")
        assert short.plan == (SHORT,)
        first = await app.steer_explore(short)
        assert testweb_env.searches == [SHORT] and first.sources
        long = await app.steer(Q, search="searxng", search_fallback="none")
        assert long.plan[0] == Q and len(long.plan) > 1  # plus the heuristic parts


async def test_a_plan_saved_empty_still_runs_its_question(testweb_env: TestWeb) -> None:
    """A session saved before plans always held the question reopens with an empty plan."""
    async with Sleuth(Settings.from_env()) as app:
        state = await app.steer(SHORT, search="searxng", search_fallback="none")
        emptied = Steering(SHORT, "plan", values=state.values, session_id=state.session_id)
        explored = await app.steer_explore(emptied)
        assert explored.rounds == ((SHORT,),) and explored.sources


async def test_with_a_model_questions_then_plan_then_a_styled_report(
    testweb_env: TestWeb, llm: FakeLLMServer
) -> None:
    model = {"base_url": llm.url, "api_key": "k", "model": "m", "search": "searxng"}
    async with Sleuth(Settings.from_env()) as app:
        state = await app.steer(Q, **model)
        assert state.stage == "clarify"
        assert state.questions == ("Which region do you mean?", "Which plan tier?")
        planned = await app.steer_plan(state, ["the EU", ""])  # the second answer skipped
        assert planned.plan == ("Example Cloud audit log retention EU", "audit logs")
        explored = await app.steer_explore(planned)
        assert set(planned.plan) <= set(testweb_env.searches)
        done = await app.steer_write(explored, "two sentences for auditors")
        assert done.result is not None and "(two sentences for auditors)" in (
            done.result.answer or ""
        )
        again = app.steer_back(done, "plan")
        assert again.stage == "plan" and again.answers == ("the EU", "") and not again.sources


async def test_the_report_counts_every_stage_once(testweb_env: TestWeb, llm: FakeLLMServer) -> None:
    """A report's own usage covers only the writing; what the run spent is every stage's, and
    the saved sessions still count each call once."""
    model = {"base_url": llm.url, "api_key": "k", "model": "m", "search": "searxng"}
    async with Sleuth(Settings.from_env()) as app:
        state = await app.steer(Q, **model)
        planned = await app.steer_plan(state, ["the EU", ""])
        first = await app.steer_explore(planned)
        second = await app.steer_explore(first, ["audit log export"])
        done = await app.steer_write(second, "")
        assert first.result is not None and second.result is not None and done.result is not None
        spent = app.steer_spent(done)
        calls = len(llm.received)
        assert spent.llm_calls == calls  # clarifying, planning, each round, the report
        assert done.result.usage.llm_calls < calls
        rounds = (first.result.usage, second.result.usage)
        assert spent.searches == sum(u.searches for u in rounds) + done.result.usage.searches > 0
        assert spent.duration_ms >= sum(u.duration_ms for u in (*rounds, done.result.usage))
        assert spent.rounds == 2
        saved = app.sessions.stats().by_model.values()
        assert sum(m.calls for m in saved) == calls
        # A new plan asked of an explored stage starts over: the rounds' sources are not saved
        # with it again (so not counted twice), and the planning call is added.
        replanned = await app.steer_plan(second, ["the EU", ""])
        assert replanned.rounds == () and not replanned.sources
        before, after = app.steer_spent(second), app.steer_spent(replanned)
        assert after.searches == before.searches and after.llm_calls == before.llm_calls + 1


async def test_stages_come_in_order() -> None:
    async with Sleuth(Settings.from_env()) as app:
        state = await app.steer(Q, search="none", search_fallback="none")
        with pytest.raises(UsageError, match="explored round"):
            await app.steer_write(state, "")
        with pytest.raises(UsageError, match="not reached"):
            app.steer_back(state, "done")
        with pytest.raises(UsageError, match="at least one search"):
            app.steer_edit(state, ["  "])


def test_a_secret_setting_is_never_saved_with_the_run() -> None:
    values = {"api_key": "sk-live-123", "search": "none"}
    saved = Steering(Q, values=values).to_json()
    assert "sk-live-123" not in json.dumps(saved) and saved["values"] == {"search": "none"}
