"""An organization's own model, on every face: the operator gives org `acme` its own provider,
model, base URL and key with `sleuth keys org-model set`; acme's runs through the Research
API, MCP over HTTP and the OpenAI-compatible `/v1` reach acme's endpoint with acme's key (what
a loopback OpenAI-compatible server received says so), while `globex` runs on the server's
model and key; acme's model spending is metered to acme. No route shows the key. A server
whose secret key cannot open acme's key refuses acme's runs with 503 SECRET_KEY and calls no
model at all — never the server's in its place. On SQLite and on PostgreSQL."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
import asyncio
import io
import json
from collections.abc import Iterator
from typing import Any

import httpx
import openai
from mcp import ClientSession

from sleuth.app.orgmodels import new_secret_key
from sleuth.server.config import ServerConfig
from tests.cli.helpers import run
from tests.llm.fake_servers import FakeLLMServer, Received
from tests.server.harness import TESTWEB_DEFAULTS, Served, serving
from tests.server.research_llm import CLAIM, research_llm
from tests.server.sse import Frame, frames
from tests.server.test_mcp import streamable
from tests.server.test_route_inventory import INVENTORY
from tests.testweb.server import TestWeb

ACME_KEY = "sk-acme-own-7c41d2e9"
SERVER_KEY = "sk-server-default-0b9e"
ASKED = (
    "How long does Example Cloud keep audit logs by default?",
    "How long are Example Cloud audit logs kept by default?",
    "What is the default retention of Example Cloud audit logs?",
)


@pytest.fixture
def endpoints() -> Iterator[tuple[FakeLLMServer, FakeLLMServer]]:
    """(acme's own endpoint, the server's endpoint): two OpenAI-compatible fakes."""
    own = FakeLLMServer("openai", responder=research_llm()).start()
    default = FakeLLMServer("openai", responder=research_llm()).start()
    yield own, default
    own.stop()
    default.stop()


@pytest.fixture
def priced(monkeypatch: pytest.MonkeyPatch) -> None:
    """Price every model (loopback endpoints are otherwise free), so spending shows."""
    monkeypatch.setenv("SLEUTH_PRICE_INPUT_PER_MTOK", "1000")
    monkeypatch.setenv("SLEUTH_PRICE_OUTPUT_PER_MTOK", "1000")


def set_model(
    own: FakeLLMServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> str:
    """`sleuth keys org-model set` for acme, the key on stdin; what it printed."""
    monkeypatch.setattr("sys.stdin", io.StringIO(ACME_KEY + "\n"))
    code, out, err = run(["keys", "org-model", "set", "--org", "acme", "--provider", "openai",
                          "--model", "acme-model", "--base-url", own.url], capsys)  # fmt: skip
    assert code == 0, err
    return out


def server(secret: str | None, default: FakeLLMServer) -> ServerConfig:
    return ServerConfig(secret_key=secret, defaults={
        **TESTWEB_DEFAULTS, "base_url": default.url, "api_key": SERVER_KEY,
        "model": "server-model",
    })  # fmt: skip


def keys_and_models(received: list[Received]) -> set[tuple[str, str]]:
    return {(r.key, r.body["model"]) for r in received}


def research(served: Served, org: str, key: str, question: str) -> httpx.Response:
    return httpx.post(f"{served.api}/orgs/{org}/research", headers={"X-API-Key": key},
                      json={"query": question}, timeout=60)  # fmt: skip


async def mcp_research(served: Served, key: str, question: str) -> dict[str, Any]:
    async with streamable(served, key) as streams, ClientSession(*streams[:2]) as session:
        await session.initialize()
        answer = await session.call_tool("research", {"question": question})
    assert answer.is_error is False, answer.content
    data: dict[str, Any] = answer.structured_content or {}
    return data


def chat(served: Served, key: str, question: str) -> dict[str, Any]:
    sdk = openai.OpenAI(api_key=key, base_url=served.base + "/v1", max_retries=0, timeout=60)
    done = sdk.chat.completions.create(
        model="sleuth-quick", messages=[{"role": "user", "content": question}]
    )
    extra = done.model_extra or {}
    assert CLAIM in (done.choices[0].message.content or "")
    return dict(extra["sleuth"])


def shown(served: Served, org: str, key: str) -> dict[str, Any]:
    response = httpx.get(f"{served.api}/orgs/{org}/model", headers={"X-API-Key": key})
    assert response.status_code == 200
    assert ACME_KEY not in response.text and SERVER_KEY not in response.text
    data: dict[str, Any] = response.json()
    return data


def test_an_org_runs_on_its_own_model_on_every_face(
    testweb_env: TestWeb,
    service_backend: str | None,
    endpoints: tuple[FakeLLMServer, FakeLLMServer],
    priced: None,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    own, default = endpoints
    secret = new_secret_key()
    monkeypatch.setenv("SLEUTH_SECRET_KEY", secret)
    printed = set_model(own, capsys, monkeypatch)
    assert f"acme  openai  acme-model  {own.url}  key set: yes" in printed
    assert ACME_KEY not in printed
    with serving(server(secret, default)) as served:
        acme, globex = served.key("acme"), served.key("globex")
        answered = research(served, "acme", acme, ASKED[0])
        assert answered.status_code == 200, answered.text
        costs = [answered.json()["usage"]["cost_usd"]]
        costs.append(asyncio.run(mcp_research(served, acme, ASKED[1]))["usage"]["cost_usd"])
        costs.append(chat(served, acme, ASKED[2])["usage"]["cost_usd"])
        # Every call of acme's three runs went to acme's endpoint with acme's key and model.
        assert keys_and_models(own.received) == {(ACME_KEY, "acme-model")}
        writes = [r for r in own.received if "<sources>" in json.dumps(r.body)]
        assert len(writes) == 3 and default.received == []
        other = research(served, "globex", globex, ASKED[0])
        assert other.status_code == 200, other.text
        assert keys_and_models(default.received) == {(SERVER_KEY, "server-model")}
        other_calls = list(default.received)
        assert len(writes) == len([r for r in own.received if "<sources>" in json.dumps(r.body)])

        assert shown(served, "acme", acme) == {
            "orgId": "acme", "own": True, "provider": "openai", "model": "acme-model",
            "base_url": own.url, "key_set": True, "plan_model": None, "critic_model": None,
            "updated_at": shown(served, "acme", acme)["updated_at"],
        }  # fmt: skip
        assert shown(served, "globex", globex)["own"] is False
        run_id = answered.json()["session_id"]
        for path in keyed_reads(run_id):  # every route a key may GET, as acme
            seen = httpx.get(served.base + path, headers={"X-API-Key": acme}, timeout=60)
            assert seen.status_code != 500 and ACME_KEY not in seen.text, path

        usage = httpx.get(f"{served.api}/orgs/acme/usage", headers={"X-API-Key": acme}).json()
        assert all(c and c > 0 for c in costs)
        assert usage["cost_usd"] == pytest.approx(sum(costs), abs=1e-5)
        assert usage["days"][-1]["runs"] == 3
        theirs = httpx.get(f"{served.api}/orgs/globex/usage", headers={"X-API-Key": globex})
        assert theirs.json()["cost_usd"] == pytest.approx(other.json()["usage"]["cost_usd"])

        # The web-app SSE dialect, through a one-use ticket (which carries no model: the
        # organization's is looked up): acme's endpoint again.
        before = len(own.received)
        events = sse_live(served, acme, {"query": "Example Cloud audit log retention period"})
        text = "".join(e.data for e in events if e.event == "message")
        assert "error" not in {e.event for e in events} and CLAIM in text
        assert len(own.received) > before
        assert keys_and_models(own.received) == {(ACME_KEY, "acme-model")}
        assert len(default.received) == len(other_calls)
        # A request of acme's cannot pick another model: acme's runs use acme's only.
        picked = sse_live(served, acme, {"query": ASKED[0], "provider": "openaicompatible",
                                         "taskModel": "server-model"})  # fmt: skip
        errors = [e.json["message"] for e in picked if e.event == "error"]
        assert errors and "choose another" in errors[0] and ACME_KEY not in errors[0]


def keyed_reads(run_id: str) -> list[str]:
    """Every GET route behind the key guard (the route inventory's; MCP streams are tool calls,
    above), for acme's run."""
    paths = [p for m, p, guard, _ in INVENTORY if m == "GET" and guard == "key"]
    assert "/api/orgs/{org}/model" in paths and "/api/orgs/{org}/usage" in paths
    fill = {"{org}": "acme", "{run_id}": run_id, "{batch_id}": "x", "{path:path}": "a.txt"}
    out = []
    for path in [*paths, "/api/openapi.json"]:
        for name, value in fill.items():
            path = path.replace(name, value)
        out.append(path)
    return out


def sse_live(served: Served, key: str, params: dict[str, str]) -> list[Frame]:
    """The events of `GET /api/sse/live` with a ticket issued for `key`."""
    got = httpx.post(served.base + "/api/sse/ticket", headers={"Authorization": f"Bearer {key}"})
    query = {"ticket": got.json()["ticket"], **params}
    with httpx.stream("GET", served.base + "/api/sse/live", params=query, timeout=120) as r:
        assert r.status_code == 200
        return list(frames(r.iter_lines()))


@pytest.mark.parametrize("secret", ["other", None], ids=["wrong-secret-key", "no-secret-key"])
def test_a_key_the_server_cannot_open_refuses_the_run_and_calls_no_model(
    testweb_env: TestWeb,
    endpoints: tuple[FakeLLMServer, FakeLLMServer],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    secret: str | None,
) -> None:
    own, default = endpoints
    monkeypatch.setenv("SLEUTH_SECRET_KEY", new_secret_key())
    set_model(own, capsys, monkeypatch)
    serving_with = new_secret_key() if secret else None
    with serving(server(serving_with, default)) as served:
        acme, globex = served.key("acme"), served.key("globex")
        refused = research(served, "acme", acme, ASKED[0])
        assert refused.status_code == 503, refused.text
        body = refused.json()
        assert body["code"] == "SECRET_KEY" and "secret_key" in body["error"]
        assert ACME_KEY not in refused.text
        sdk = openai.OpenAI(api_key=acme, base_url=served.base + "/v1", max_retries=0)
        with pytest.raises(openai.APIStatusError) as failed:
            sdk.chat.completions.create(
                model="sleuth-quick", messages=[{"role": "user", "content": ASKED[2]}]
            )
        assert failed.value.status_code == 503
        assert own.received == [] and default.received == []  # no model at all, not the server's
        assert shown(served, "acme", acme)["key_set"] is True  # shown without opening it
        assert research(served, "globex", globex, ASKED[0]).status_code == 200
        assert default.received and own.received == []
