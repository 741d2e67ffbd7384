"""One `Sleuth` serves many runs at once: each run's options, meter, backends and result stay
its own (the application core issue's must-show)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from sleuth.app.application import Sleuth
from sleuth.errors import BudgetExceededError
from sleuth.settings import Settings
from sleuth.types import Result
from tests.llm.fake_servers import FakeLLMServer, Received, Reply
from tests.testweb.server import TestWeb

AUDIT_Q = "How long does Example Cloud keep audit logs by default?"


def answer_by_model(request: Received) -> Reply:
    """Triage gets a verdict; the writer a cited sentence. Token counts encode the model, so a
    meter that counted another run's calls would show it."""
    n = int(re.sub(r"\D", "", request.body["model"]))
    prompt = " ".join(str(m.get("content", "")) for m in request.body["messages"])
    if '"type"' in prompt and "multi_hop" in prompt:
        return Reply(chunks=['{"type": "single"}'], usage=(100 + n, 1))
    return Reply(chunks=["Audit logs are kept for 90 days by default [1]."], usage=(1000 + n, n))


@pytest.fixture
def llm() -> Any:
    server = FakeLLMServer("openai", responder=answer_by_model).start()
    yield server
    server.stop()


def note_file(tmp_path: Path, n: int) -> Path:
    path = tmp_path / f"note-{n}.md"
    path.write_text(f"# Note {n}\n\nAudit logs in project {n} are kept for {n + 10} days.\n")
    return path


async def test_twenty_concurrent_asks_keep_their_own_options_meters_and_results(
    testweb_env: TestWeb, llm: FakeLLMServer, tmp_path: Path
) -> None:
    runs: list[dict[str, Any]] = []
    for n in range(8):  # LLM runs: each its own model, so its own meter line
        runs.append({"base_url": llm.url, "api_key": "k", "model": f"m{n}", "max_cost": 5.0})
    for n in range(2):  # a zero budget stops only its own run
        runs.append({"base_url": llm.url, "api_key": "k", "model": f"m{90 + n}", "max_cost": 0})
    for n in range(5):  # local files only: each run sees its own file
        runs.append({"search": "none", "include": (str(note_file(tmp_path, n)),)})
    for since in ("2024-04-01", "2024-04-01", "2099-01-01", None, None):
        runs.append({"since": since, "no_cache": True})
    async with Sleuth(Settings.from_env()) as app:
        outcomes = await asyncio.gather(
            *(app.ask(AUDIT_Q, no_sessions=True, **{"search": "searxng", **r}) for r in runs),
            return_exceptions=True,
        )  # fmt: skip
    for n, (options, outcome) in enumerate(zip(runs, outcomes, strict=True)):
        check(n, options, outcome)


def check(n: int, options: dict[str, Any], outcome: Result | BaseException) -> None:
    if options.get("max_cost") == 0:
        assert isinstance(outcome, BudgetExceededError), (n, outcome)
        return
    assert isinstance(outcome, Result), (n, outcome)
    if "model" in options:
        model = options["model"]
        assert set(outcome.usage.by_model) == {model}, (n, outcome.usage.by_model)
        usage = outcome.usage.by_model[model]
        k = int(model[1:])
        assert (usage.calls, usage.input_tokens, usage.output_tokens) == (2, 1100 + 2 * k, 1 + k)
        assert outcome.writer != "extractive"
    elif options.get("search") == "none":
        (own,) = options["include"]
        assert {s.url for s in outcome.sources} == {Path(own).resolve().as_uri()}, n
        assert f"{int(own[-4]) + 10} days" in (outcome.answer or "")
    else:
        assert not outcome.usage.by_model and outcome.writer == "extractive"
        since = options["since"]
        published = [s.published[:10] for s in outcome.sources if s.published]
        assert all(p >= since for p in published) if since else published, (n, published)
