"""The OpenAI-compatible face with real clients, unchanged: the official `openai` SDK (sync,
async, streaming) and LangChain's `ChatOpenAI` pointed at `sleuth serve`'s `/v1`. Each gets a
cited answer and its citations; a wrong key is the SDK's AuthenticationError, a spent quota its
RateLimitError (`insufficient_quota`, not retried); the routes are in the OpenAPI document; an
organization's model never reads another's knowledge base."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
import asyncio
from typing import Any

import httpx
import openai

from tests.server.harness import TESTWEB_DEFAULTS, Served, serving
from tests.testweb.server import TestWeb

Q = "How long does Example Cloud keep audit logs by default?"
ASK = [{"role": "user", "content": Q}]


def client(served: Served, key: str) -> openai.OpenAI:
    return openai.OpenAI(api_key=key, base_url=served.base + "/v1", max_retries=0, timeout=60)


def check_answer(content: str, citations: list[str], sleuth: dict[str, Any]) -> None:
    assert "[1]" in content and "## Sources" in content and "90 days" in content
    assert citations and citations == [c["url"] for c in sleuth["citations"]]
    assert sleuth["query"] == Q and sleuth["verification"]["checked"] >= 1


def test_the_openai_sdk_gets_a_cited_answer_and_its_citations(testweb_env: TestWeb) -> None:
    with serving() as served:
        sdk = client(served, served.key("acme"))
        assert [m.id for m in sdk.models.list()][:2] == ["sleuth-quick", "sleuth-deep"]
        done = sdk.chat.completions.create(model="sleuth-quick", messages=ASK, temperature=0.2)
        extra = done.model_extra or {}
        check_answer(done.choices[0].message.content or "", extra["citations"], extra["sleuth"])
        assert done.choices[0].finish_reason == "stop" and done.model == "sleuth-quick"
        assert done.usage is not None and done.usage.total_tokens > 0
        # Streamed, the same request: the same checked text (from the cache now), in pieces.
        stream = sdk.chat.completions.create(
            model="sleuth-quick", messages=ASK, stream=True,
            stream_options={"include_usage": True},
        )  # fmt: skip
        pieces, last, usage = [], None, None
        for chunk in stream:
            if chunk.usage is not None:
                usage = chunk.usage
            for choice in chunk.choices:
                pieces.append(choice.delta.content or "")
                if choice.finish_reason:
                    last = chunk
        assert "".join(pieces) == done.choices[0].message.content
        assert last is not None and (last.model_extra or {})["citations"] == extra["citations"]
        assert usage is not None and usage.total_tokens > 0
        runs = served.metric("sleuth_runs_total", depth="quick", outcome="ok")
        assert runs == 1  # the second was the first's cached answer


def test_a_fresh_stream_shows_progress_then_the_answer(testweb_env: TestWeb) -> None:
    async def go(served: Served, key: str) -> tuple[str, str]:
        sdk = openai.AsyncOpenAI(api_key=key, base_url=served.base + "/v1", max_retries=0)
        thinking, said = [], []
        stream = await sdk.chat.completions.create(model="sleuth-quick", messages=ASK,
                                                   stream=True)  # fmt: skip
        async for chunk in stream:
            for choice in chunk.choices:
                thinking.append((choice.delta.model_extra or {}).get("reasoning_content") or "")
                said.append(choice.delta.content or "")
        await sdk.close()
        return "".join(thinking), "".join(said)

    with serving() as served:
        thinking, said = asyncio.run(go(served, served.key("acme")))
    assert "search" in thinking.lower() and "[1]" in said and "## Sources" in said


def test_wrong_keys_and_spent_quotas_are_the_sdks_own_errors(testweb_env: TestWeb) -> None:
    with serving() as served:
        with pytest.raises(openai.AuthenticationError) as refused:
            client(served, "sk-not-a-key").chat.completions.create(model="sleuth-quick",
                                                                   messages=ASK)  # fmt: skip
        assert refused.value.status_code == 401
        with pytest.raises(openai.NotFoundError):
            client(served, served.key("acme")).chat.completions.create(model="gpt-4o",
                                                                       messages=ASK)  # fmt: skip
        spent = served.key("spent", searches=0)
        with pytest.raises(openai.RateLimitError) as quota:
            client(served, spent).chat.completions.create(model="sleuth-quick", messages=ASK)
        assert quota.value.code == "insufficient_quota"
        assert quota.value.response.headers["x-should-retry"] == "false"
        with pytest.raises(openai.BadRequestError):
            client(served, served.key("acme")).chat.completions.create(
                model="sleuth-quick", messages=ASK,
                tools=[{"type": "function", "function": {"name": "f", "parameters": {}}}],
            )  # fmt: skip


def test_langchain_chat_openai_gets_a_cited_answer(testweb_env: TestWeb) -> None:
    chat_models = pytest.importorskip("langchain_openai")
    with serving() as served:
        chat = chat_models.ChatOpenAI(
            model="sleuth-quick", api_key=served.key("acme"), base_url=served.base + "/v1",
            max_retries=0, timeout=60,
        )  # fmt: skip
        said = chat.invoke(Q)
        assert "[1]" in said.content and "90 days" in said.content
        streamed = "".join(str(piece.content) for piece in chat.stream(Q))
        assert streamed == said.content


def test_the_routes_are_documented_and_scoped_to_the_callers_knowledge_base(
    testweb_env: TestWeb,
) -> None:
    testweb_env.script_search("zephyr", [])
    defaults = {**TESTWEB_DEFAULTS, "search": "multi:kb,searxng"}
    with serving(defaults=defaults) as served:
        knowledge = served.state.app.knowledge
        memo = b"The zephyr project vault code is 4409 in the acme notes."
        served.call(lambda _: knowledge.upload("acme", "default", "acme.md", memo))
        doc = httpx.get(f"{served.api}/openapi.json").json()["paths"]
        assert "/v1/chat/completions" in doc and "/v1/models" in doc
        ask = [{"role": "user", "content": "What is the vault code of the zephyr project?"}]
        theirs = client(served, served.key("globex"))
        with pytest.raises(openai.BadRequestError) as empty:  # its own base: it has none
            theirs.chat.completions.create(model="sleuth-quick+kb", messages=ask)
        assert "4409" not in str(empty.value) and "is empty" in str(empty.value)
        mine = client(served, served.key("acme"))
        answer = mine.chat.completions.create(model="sleuth-quick+kb", messages=ask)
        assert "4409" in (answer.choices[0].message.content or "")
