"""Issue 29, item 2 over the wire: the web-app dialect's `searchProvider` names Firecrawl, crw and
Bocha (as the seed does); a deep run with one selected searches it (recorded answers on the
loopback replay server), reads the pages it names on the test web and cites them."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
import json

import httpx

from sleuth.server.config import ServerConfig
from tests.llm.fake_servers import FakeLLMServer
from tests.search.replay import ReplayServer
from tests.server.harness import TESTWEB_DEFAULTS, serving
from tests.server.research_llm import research_llm
from tests.server.sse import frames
from tests.testweb.server import TestWeb

DOCS = "http://docs.examplecloud.com/security/audit-logs/retention"
Q = "How long does Example Cloud keep audit logs, and how can they be exported?"


def test_a_web_app_run_searches_the_named_provider(
    testweb_env: TestWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm = FakeLLMServer("openai", responder=research_llm(critic_rounds=0)).start()
    try:
        with ReplayServer(scenario="testweb") as replay:
            for name, value in replay.env().items():
                monkeypatch.setenv(name, value)
            defaults = {**TESTWEB_DEFAULTS, "base_url": llm.url, "api_key": "k", "model": "m"}
            with serving(ServerConfig(), defaults=defaults) as served:
                headers = {"X-API-Key": served.key("acme")}
                for provider in ("firecrawl", "crw", "bocha"):
                    replay.requests.clear()
                    body = {"query": Q, "searchProvider": provider}
                    url = f"{served.base}/api/sse"
                    with httpx.stream("POST", url, json=body, headers=headers, timeout=120) as r:
                        got = list(frames(r.iter_lines()))
                    events = [f.event for f in got]
                    assert "error" not in events and events[-1] == "progress", (provider, got)
                    assert {r.backend for r in replay.requests} == {provider}
                    text = "".join(json.loads(f.data)["text"] for f in got
                                   if f.event == "message")  # fmt: skip
                    assert DOCS in text, (provider, text[-600:])
    finally:
        llm.stop()
    assert not any("10.0.0.5" in h or "169.254" in h for h in testweb_env.hits)
