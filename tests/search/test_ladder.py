"""Wikipedia and StackExchange retry a zero-result question with 4, 2, then 1 content tokens."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx2
import pytest

from sleuth.ports import SearchQuery
from sleuth.registry import BackendSettings
from sleuth.search.spec import build_search

QUESTION = "how do I configure nginx reverse proxy websocket timeouts for long polling"


def wiki_answer(hits: list[str]) -> dict[str, Any]:
    return {"query": {"search": [{"title": t, "snippet": t} for t in hits]}}


def se_answer(hits: list[str]) -> dict[str, Any]:
    items = [{"title": t, "link": f"https://serverfault.com/q/{i}"} for i, t in enumerate(hits)]
    return {"items": items, "has_more": False}


CASES = {
    "wikipedia": ("srsearch", wiki_answer),
    "stackexchange": ("q", se_answer),
}


def scripted(
    param: str,
    answer: Callable[[list[str]], dict[str, Any]],
    hits_for: dict[str, list[str]],
    asked: list[str],
) -> httpx2.MockTransport:
    def handle(request: httpx2.Request) -> httpx2.Response:
        text = request.url.params[param]
        asked.append(text)
        return httpx2.Response(200, json=answer(hits_for.get(text, [])))

    return httpx2.MockTransport(handle)


@pytest.mark.parametrize("name", sorted(CASES))
async def test_ladder_stops_at_the_first_rung_with_hits(name: str) -> None:
    param, answer = CASES[name]
    asked: list[str] = []
    mock = scripted(param, answer, {"configure nginx": ["Nginx"]}, asked)
    backend = build_search(name, BackendSettings(extra={"transport": mock}))
    results = await backend.search(SearchQuery(QUESTION))
    assert asked == [QUESTION, "configure nginx reverse proxy", "configure nginx"]
    assert [r.title for r in results] == ["Nginx"]


@pytest.mark.parametrize("name", sorted(CASES))
async def test_ladder_gives_up_after_one_token(name: str) -> None:
    param, answer = CASES[name]
    asked: list[str] = []
    backend = build_search(
        name, BackendSettings(extra={"transport": scripted(param, answer, {}, asked)})
    )
    assert await backend.search(SearchQuery(QUESTION)) == []
    assert asked[1:] == ["configure nginx reverse proxy", "configure nginx", "configure"]


@pytest.mark.parametrize("name", sorted(CASES))
async def test_no_ladder_when_the_question_finds_something(name: str) -> None:
    param, answer = CASES[name]
    asked: list[str] = []
    mock = scripted(param, answer, {QUESTION: ["Direct hit"]}, asked)
    backend = build_search(name, BackendSettings(extra={"transport": mock}))
    assert [r.title for r in await backend.search(SearchQuery(QUESTION))] == ["Direct hit"]
    assert asked == [QUESTION]
