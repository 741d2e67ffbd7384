"""Issue 27, the web UI over real HTTP: History lists one row per question (a steered run's
stages inside it), the diff compares what the person kept, Settings shows what a run uses
now, the Chinese page words its times and notes, and the Clarify step shows only where a
model asked something."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime

import pytest

pytest.importorskip("jinja2", reason="the web UI needs sleuth[server]")
import httpx

from sleuth.app.application import Sleuth
from sleuth.app.steer import Steering
from sleuth.server.config import ServerConfig
from sleuth.settings import Settings
from sleuth.store import SessionStore, sessions_db_path
from sleuth.store.records import SessionRecord
from tests.graph.results import CLOUD, RIVAL, result, source
from tests.server.harness import serving
from tests.testweb.server import TestWeb

HTML = {"Accept": "text/html"}
QUESTIONS = (
    "How long does Example Cloud keep audit logs by default?",
    "How can Example Cloud audit logs be exported?",
)


def open_ui(**defaults: object) -> object:
    return serving(ServerConfig(open_access=True), defaults=defaults or None)


async def steered_runs() -> list[str]:
    """Each question steered through a plan, an edited plan, a round and the report."""
    ids = []
    async with Sleuth(Settings.from_env()) as app:
        for question in QUESTIONS:
            state = await app.steer(question, search="searxng", search_fallback="none")
            state = await app.steer_explore(app.steer_edit(state, [question]))
            done = await app.steer_write(state, "")
            ids.append(done.session_id or "")
    return ids


def cards(page: str) -> list[str]:
    return re.findall(r'<li class="card run" data-session="([^"]+)"', page)


def test_history_lists_one_row_per_question_with_its_stages_inside(testweb_env: TestWeb) -> None:
    reports = asyncio.run(steered_runs())
    assert len(SessionStore(sessions_db_path()).list()) == 8  # plan, edited plan, round, report
    with open_ui() as served, httpx.Client(base_url=served.base) as client:  # type: ignore[attr-defined]
        page = client.get("/history", headers=HTML).text
        assert sorted(cards(page)) == sorted(reports)  # one row per question: its report
        assert "Runs shown: 2 / 2" in page
        assert page.count("<summary>Stages (3)</summary>") == 2  # two plans and the round
        assert "Earlier runs in this thread" not in page  # stages are not runs
        found = client.get("/history", params={"q": "exported"}).text
        assert cards(found) and set(cards(found)) <= set(reports)  # a stage found: its run


def _saved(question: str, when: datetime, *sources: object) -> str:
    record = SessionRecord.new(question, result(*sources, query=question, answer="A [1]."),  # type: ignore[arg-type]
                               now=when)  # fmt: skip
    return SessionStore(sessions_db_path()).save(record)


def test_the_diff_compares_the_saved_edit_and_the_chinese_page_words_it() -> None:
    a = _saved("Q?", datetime(2026, 5, 1, 9, 30, tzinfo=UTC), source(1, CLOUD))
    b = _saved("Q?", datetime(2026, 6, 1, tzinfo=UTC), source(1, CLOUD), source(2, RIVAL))
    edited = "Example Cloud keeps audit logs for 90 days [1]."
    SessionStore(sessions_db_path()).add_revision(a, edited, {}, "edited")
    with open_ui() as served, httpx.Client(base_url=served.base) as client:  # type: ignore[attr-defined]
        page = client.get("/history/diff", params=[("pick", a), ("pick", b)]).text
        assert "keeps audit logs for 90 days" in page  # the edit, not the generated "A [1]."
        assert "revision 1" in page and "as generated" in page
        assert "1 May 2026, 09:30 UTC" in client.get("/history").text
        client.cookies.set("lang", "zh-Hans")
        shown = client.get(f"/runs/{a}", params={"rev": 1}).text
        assert "已编辑" in shown and "· edited ·" not in shown
        history = client.get("/history").text
        assert "2026年5月1日 09:30（UTC）" in history and "2026-05-01 09:30" not in history


def test_settings_shows_what_a_run_uses_now_with_the_key_masked() -> None:
    with open_ui(search="searxng") as served, httpx.Client(base_url=served.base) as client:  # type: ignore[attr-defined]
        page = client.get("/settings").text
        in_use = page.split('id="in-use-h"', 1)[1].split("</section>", 1)[0]
        assert "None: the built-in extractive writer" in in_use
        assert "<code>searxng</code>" in in_use and "server setting" in in_use
        form = {"base_url": "http://127.0.0.1:9/v1", "model": "task-model",
                "plan_model": "", "api_key": "sk-very-secret-abcd1234", "search": ""}  # fmt: skip
        assert client.post("/settings", data=form).status_code == 303
        page = client.get("/settings").text
        in_use = page.split('id="in-use-h"', 1)[1].split("</section>", 1)[0]
        assert "<code>http://127.0.0.1:9/v1</code>" in in_use
        assert "<code>task-model</code>" in in_use  # the task model, and the thinking model
        assert in_use.count("<code>task-model</code>") == 2  # falls back to it
        assert "<code>…1234</code>" in in_use and "sk-very-secret" not in page
        assert in_use.count("saved here") == 3 and "<code>searxng</code>" in in_use


async def _started() -> Steering:
    async with Sleuth(Settings.from_env()) as app:
        return await app.steer(QUESTIONS[0], search="searxng", search_fallback="none")


def test_the_clarify_step_shows_only_where_a_model_asked(testweb_env: TestWeb) -> None:
    state = asyncio.run(_started())
    assert state.stage == "plan" and not state.questions  # no model: nothing to clarify
    with open_ui() as served, httpx.Client(base_url=served.base) as client:  # type: ignore[attr-defined]
        page = client.get(f"/runs/{state.session_id}").text
        steps = page.split('<ol class="stages"', 1)[1].split("</ol>", 1)[0]
        assert "Clarify" not in steps and "Plan" in steps
        assert '<option value="clarify">' not in page
