"""The web-app seed's SSE API, consumed by its recommended client, `@microsoft/fetch-event-source`
in Node, unchanged: a deep run through the scripted fake LLM over `POST /api/sse` and over
`GET /api/sse/live`; a bad provider; and who may call."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest

from sleuth.export.markdown import result_markdown
from sleuth.server.config import ServerConfig
from tests.llm.fake_servers import FakeLLMServer
from tests.server.harness import TESTWEB_DEFAULTS, Served, serving
from tests.server.research_llm import CLAIM, THOUGHT, prompt_of, research_llm
from tests.server.sse import frames
from tests.testweb.server import TestWeb

DEEP_Q = "How long does Example Cloud keep audit logs, and how can they be exported?"
PASSWORD = "correct horse battery staple"
CLIENT = Path(__file__).parent / "node" / "sse_client.mjs"
STEPS = {"report-plan", "serp-query", "task-list", "search-task", "final-report"}
PACKAGE = "@microsoft/fetch-event-source@2.0.1"
NODE_CACHE = Path.home() / ".cache/sleuth-tests/node"  # where .ci/run installs the package


@pytest.fixture(scope="session")
def node_modules() -> Path:
    """A node_modules with the client library: `.ci/run` installs it; else installed here once."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("Node.js and npm are not installed (.ci/run installs them from Debian)")
    root = NODE_CACHE
    if not (root / "node_modules/@microsoft/fetch-event-source/package.json").exists():
        root.mkdir(parents=True, exist_ok=True)
        command = [npm, "install", "--no-audit", "--no-fund", "--prefix", str(root), PACKAGE]
        subprocess.run(command, check=True, capture_output=True, timeout=300)
    return root / "node_modules"


@pytest.fixture
def llm() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer("openai", responder=research_llm(critic_rounds=1)).start()
    yield server
    server.stop()


def serve(llm: FakeLLMServer) -> Any:
    defaults = {**TESTWEB_DEFAULTS, "base_url": llm.url, "api_key": "test-key", "model": "m"}
    config = ServerConfig(access_password=PASSWORD, allowed_models=("task-model", "think-model"))
    return serving(config, defaults=defaults)


def fetch_event_source(
    node_modules: Path, url: str, method: str = "GET", body: Any = None, auth: str = ""
) -> dict[str, Any]:
    command = ["node", str(CLIENT), url, method, json.dumps(body) if body else "", auth]
    env = {**os.environ, "SLEUTH_NODE_MODULES": str(node_modules)}
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout)
    assert out["opened"]["status"] == 200 and out["malformed"] == []
    return out


def deep_body(**extra: Any) -> dict[str, Any]:
    return {
        "query": DEEP_Q, "provider": "openaicompatible", "thinkingModel": "think-model",
        "taskModel": "task-model", "searchProvider": "searxng", "language": "en-US",
        "maxResult": 5, "enableCitationImage": True, "enableReferences": True, **extra,
    }  # fmt: skip


def check_deep_run(out: dict[str, Any], served: Served, llm: FakeLLMServer) -> None:
    events = [(e["event"], json.loads(e["data"])) for e in out["events"]]
    assert events[0][0] == "infor" and events[0][1]["name"] == "sleuth"
    assert {name for name, _ in events} <= {"infor", "progress", "message", "reasoning"}
    progress = [data for name, data in events if name == "progress"]
    assert {p["step"] for p in progress} == STEPS
    open_steps: Counter[tuple[str, str | None]] = Counter()
    for p in progress:  # every end closes a start of the same step (and name)
        key = (p["step"], p.get("name"))
        open_steps[key] += 1 if p["status"] == "start" else -1
        assert open_steps[key] >= 0, p
    assert not +open_steps  # balanced
    tasks = [p for p in progress if p["step"] == "search-task" and p["status"] == "end"]
    assert tasks and all(p["name"] and p["data"]["results_count"] >= 0 for p in tasks)
    assert any(p["data"]["results_count"] > 0 for p in tasks)

    text = "".join(data["text"] for name, data in events if name == "message")
    final = [p for p in progress if p["step"] == "final-report" and p["status"] == "end"][-1]
    record = served.store.sessions.get(final["data"]["session_id"])
    report = result_markdown(record.result)
    assert text.endswith(report)  # the checked, cited final report closes the text
    assert f"{CLAIM} [" in report and "## Sources" in report
    assert record.result.verification.supported == record.result.verification.checked >= 1
    reasoning = "".join(data["text"] for name, data in events if name == "reasoning")
    assert THOUGHT in reasoning and THOUGHT not in text  # reasoning never joins the report

    models = {r.body["model"] for r in llm.received if "You plan web searches" in prompt_of(r)}
    writers = {r.body["model"] for r in llm.received if "<sources>" in prompt_of(r)}
    assert models == {"think-model"} and writers == {"task-model"}


def test_fetch_event_source_posts_a_deep_run(
    testweb_env: TestWeb, llm: FakeLLMServer, node_modules: Path
) -> None:
    with serve(llm) as served:
        key = served.key("acme")
        overrides = {
            "systemInstruction": "Write for auditors.",
            "citationRulesPrompt": "Never cite anything.",
        }
        body = deep_body(promptOverrides=overrides)
        out = fetch_event_source(node_modules, f"{served.base}/api/sse", "POST", body,
                                 f"Bearer {key}")  # fmt: skip
        check_deep_run(out, served, llm)
        infor = json.loads(out["events"][0]["data"])
        assert "ignoredPromptOverrides" not in infor and "warnings" not in infor
        writer = next(r for r in llm.received if "<sources>" in prompt_of(r))
        system = writer.body["messages"][0]["content"]
        assert system.startswith("Write for auditors.")  # in place of Sleuth's role
        assert system.index("Never cite anything.") < system.index("Rules (Sleuth's own")
        assert served.store.sessions.list(org="acme")  # the run belongs to the key's org


def test_fetch_event_source_watches_a_deep_run_from_a_live_url(
    testweb_env: TestWeb, llm: FakeLLMServer, node_modules: Path
) -> None:
    with serve(llm) as served:
        query = urlencode({**deep_body(), "ticket": ticket(served, PASSWORD)})
        out = fetch_event_source(node_modules, f"{served.base}/api/sse/live?{query}")
        check_deep_run(out, served, llm)


def ticket(served: Served, secret: str) -> str:
    got = httpx.post(served.base + "/api/sse/ticket", headers={"Authorization": f"Bearer {secret}"})
    assert got.status_code == 200, got.text
    value: str = got.json()["ticket"]
    return value


def test_a_bad_provider_is_one_error_event(
    testweb_env: TestWeb, llm: FakeLLMServer, node_modules: Path
) -> None:
    with serve(llm) as served:
        body = deep_body(provider="pollinations")
        out = fetch_event_source(node_modules, f"{served.base}/api/sse", "POST", body,
                                 f"Bearer {PASSWORD}")  # fmt: skip
        names = [e["event"] for e in out["events"]]
        assert names == ["infor", "error"]
        message = json.loads(out["events"][1]["data"])["message"]
        assert "pollinations" in message and "Pollinations" in message
        assert llm.received == [] and testweb_env.searches == []


def first_event(served: Served, method: str, path: str, **kwargs: Any) -> tuple[int, str]:
    with httpx.stream(method, served.base + path, timeout=60, **kwargs) as r:
        if r.status_code != 200:
            r.read()
            return r.status_code, r.text
        return 200, next(r.iter_lines())


def test_the_password_or_a_key_is_needed(testweb_env: TestWeb, llm: FakeLLMServer) -> None:
    with serve(llm) as served:
        key, body = served.key("acme"), {"query": DEEP_Q}
        status, text = first_event(served, "POST", "/api/sse", json=body)
        assert status == 401 and json.loads(text)["code"] == "UNAUTHORIZED"
        wrong = {"Authorization": "Bearer not-the-password"}
        assert first_event(served, "POST", "/api/sse", json=body, headers=wrong)[0] == 401
        assert first_event(served, "GET", "/api/sse/live", params=body)[0] == 401
        for headers in ({"Authorization": f"Bearer {PASSWORD}"}, {"X-API-Key": key}):
            status, line = first_event(served, "POST", "/api/sse", json=body, headers=headers)
            assert (status, line) == (200, "event: infor")
        live = {**body, "ticket": ticket(served, PASSWORD)}
        assert first_event(served, "GET", "/api/sse/live", params=live) == (200, "event: infor")
        assert first_event(served, "GET", "/api/sse/live", params=live)[0] == 401  # one use
        for secret in ({"password": PASSWORD}, {"api_key": key}, {"key": key}):
            assert first_event(served, "GET", "/api/sse/live", params={**body, **secret})[0] == 401
        searches_only = served.key("acme", scopes=("search",))
        no_scope = {"X-API-Key": searches_only}
        assert first_event(served, "POST", "/api/sse", json=body, headers=no_scope)[0] == 403


def test_the_servers_own_endpoint_must_exist_for_openaicompatible(testweb_env: TestWeb) -> None:
    with serving(ServerConfig(allowed_models=("m",))) as served:  # no model endpoint configured
        headers = {"X-API-Key": served.key("acme")}
        body = {"query": DEEP_Q, "provider": "openaicompatible", "taskModel": "m"}
        with httpx.stream("POST", f"{served.base}/api/sse", json=body, headers=headers) as r:
            got = list(frames(r.iter_lines()))
    assert [f.event for f in got] == ["infor", "error"]
    assert "no model endpoint configured" in got[1].json["message"]
    assert testweb_env.searches == []


def _one_weak_claim(received: Any) -> Any:
    """The scripted model, but its writer adds a claim its source does not make: the checked
    report then carries a `## Citation health` section listing that sentence by its marker."""
    from tests.llm.fake_servers import Reply
    from tests.server.research_llm import cited_number

    prompt = prompt_of(received)
    if "<sources>" not in prompt or "You review a draft" in prompt:
        return research_llm(critic_rounds=0)(received)
    n = cited_number(prompt)
    claims = f"{CLAIM} [{n}]. The moon is made of green cheese [{n}, {n}].\n"
    return Reply(chunks=["## Retention\n\n", claims[:40], claims[40:]])


def _streamed_text(served: Served, key: str, references: bool) -> str:
    body = {**deep_body(enableReferences=references), "query": "How long are audit logs kept?"}
    headers = {"X-API-Key": key}
    with httpx.stream("POST", f"{served.base}/api/sse", json=body, headers=headers,
                      timeout=120) as r:  # fmt: skip
        got = list(frames(r.iter_lines()))
    assert "error" not in {f.event for f in got}, got
    return "".join(f.json["text"] for f in got if f.event == "message")


def test_enable_references_false_leaves_no_markers_sources_or_citation_health(
    testweb_env: TestWeb,
) -> None:
    """Issue 27: with `enableReferences: false` the text kept dangling `[n]` markers and the
    citation-health section (which names sentences by their markers)."""
    import re

    server = FakeLLMServer("openai", responder=_one_weak_claim).start()
    try:
        with serve(server) as served:
            key = served.key("acme")
            with_refs = _streamed_text(served, key, references=True)
            without = _streamed_text(served, key, references=False)
    finally:
        server.stop()
    assert re.search(r"\[\d+\]", with_refs) and "## Citation health" in with_refs
    assert "## Sources" in with_refs  # the control: the same run with references on
    assert not re.search(r"\[\s*\d", without), without
    assert "## Citation health" not in without and "## Sources" not in without
    assert f"{CLAIM}." in without and "green cheese." in without


@pytest.mark.parametrize(
    ("body", "refusal"),
    [
        ({"provider": "openai", "taskModel": "gpt-x"}, "pick its model endpoint"),
        ({"provider": "openaicompatible", "taskModel": "pricey-model"}, "'pricey-model'"),
    ],
)
def test_a_caller_never_spends_the_operators_other_keys_or_models(
    testweb_env: TestWeb, llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch,
    body: dict[str, str], refusal: str,
) -> None:  # fmt: skip
    """The server has an OpenAI key in its environment and its own model endpoint: a caller
    naming the provider `openai`, or another model, is refused unless the operator allows it
    (allowed_providers, allowed_models); nothing reaches a model."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-operator-secret")
    defaults = {**TESTWEB_DEFAULTS, "base_url": llm.url, "api_key": "test-key", "model": "m"}
    with serving(ServerConfig(), defaults=defaults) as served:
        headers = {"X-API-Key": served.key("acme")}
        with httpx.stream("POST", f"{served.base}/api/sse", json={"query": DEEP_Q, **body},
                          headers=headers) as r:  # fmt: skip
            got = list(frames(r.iter_lines()))
    assert [f.event for f in got] == ["infor", "error"], got
    assert refusal in got[1].json["message"]
    assert llm.received == [] and testweb_env.searches == []
