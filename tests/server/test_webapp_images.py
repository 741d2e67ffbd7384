"""The web-app dialect's `enableCitationImage` over `POST /api/sse`: on (the seed's default),
the final report shows the cited page's figure under the sentence it illustrates, and images
the page names on private addresses are never requested; off, no image is fetched or shown."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.app.test_report_images import CHART, assert_never_requested, cloud_web
from tests.llm.fake_servers import FakeLLMServer, Received, Reply
from tests.server.research_llm import cited_number, prompt_of
from tests.server.sse import Frame, frames
from tests.server.test_webapp_sse import PASSWORD, serve
from tests.testweb.server import TestWeb

__all__ = ["cloud_web"]  # the fixture, used by name
CLAIM = "CloudCo keeps audit logs for 90 days by default"


def writer(received: Received) -> Reply:
    prompt = prompt_of(received)
    if "Reply with a JSON array of strings only" in prompt:
        return Reply(chunks=['["CloudCo audit logs retention"]'])
    if "Classify a research question" in prompt:
        return Reply(chunks=['{"type": "single"}'])
    if 'Reply with JSON only: {"complete": true or false' in prompt:
        return Reply(chunks=['{"complete": true, "missing": [], "queries": []}'])
    if "<sources>" in prompt:
        n = cited_number(prompt, "90 days by default")
        return Reply(chunks=[f"## Retention\n\n{CLAIM} [{n}].\n"])
    return Reply(chunks=["[]"])


@pytest.fixture
def llm() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer("openai", responder=writer).start()
    yield server
    server.stop()


def report(base: str, **extra: Any) -> str:
    body = {"query": "How long does CloudCo keep audit logs by default?",
            "provider": "openaicompatible", "taskModel": "task-model",
            "thinkingModel": "think-model", "searchProvider": "searxng", **extra}  # fmt: skip
    headers = {"Authorization": f"Bearer {PASSWORD}"}
    with httpx.stream("POST", f"{base}/api/sse", json=body, headers=headers, timeout=120) as r:
        assert r.status_code == 200, r.read()
        found: list[Frame] = list(frames(r.iter_lines()))
    assert not [f for f in found if f.event == "error"], found
    texts = [f.json["text"] for f in found if f.event == "message"]
    return texts[-1]  # the checked final report closes the text


def test_enable_citation_image_shows_the_figure_in_the_report(
    cloud_web: TestWeb, llm: FakeLLMServer
) -> None:
    with serve(llm) as served:
        shown = report(served.base)
    assert f"{CLAIM} [1].\n\n![Chart of audit log retention: 90 days by default]({CHART})" in shown
    assert "## Sources" in shown
    assert_never_requested(cloud_web)


def test_enable_citation_image_false_fetches_and_shows_none(
    cloud_web: TestWeb, llm: FakeLLMServer
) -> None:
    with serve(llm) as served:
        shown = report(served.base, enableCitationImage=False)
    assert "![" not in shown and CLAIM in shown
    assert cloud_web.hits_for("cdn.cloudco.example") == []
    assert_never_requested(cloud_web)
