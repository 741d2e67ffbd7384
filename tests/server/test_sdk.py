"""The published `xdive` SDK, unchanged, against Sleuth: `sleuth keys create` + `sleuth serve`
as a user runs them, then whoami, quick and deep research, search; structured output through
the scripted fake LLM; QuotaExceeded on 402; its retries on 503 SERVER_BUSY and on 409."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
pytest.importorskip("xdive", reason="the server tests need sleuth[server] and the dev extra")
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import httpx
from xdive import QuotaExceeded, XDive

from sleuth.server.config import ServerConfig
from tests.cli.helpers import run
from tests.llm.fake_servers import FakeLLMServer, Reply
from tests.server.harness import Served, serving
from tests.server.pages import SLOW_Q, add_slow_page
from tests.testweb.server import TestWeb

Q = "How long does Example Cloud keep audit logs by default?"
ROOT = Path(__file__).parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_serve(port: int, *flags: str, log: IO[str] | None = None) -> subprocess.Popen[str]:
    """`sleuth serve` on `port`; its log (stderr) in a pipe for `communicate`, or in `log`
    (a server asked many requests: an unread pipe fills up and blocks its access log)."""
    command = [
        str(Path(sys.executable).parent / "sleuth"), "serve", f"--port={port}",
        "--search=searxng", "--search-fallback=none", "--browser=never", *flags,
    ]  # fmt: skip
    return subprocess.Popen(command, stderr=log or subprocess.PIPE, text=True)


@pytest.fixture
def sleuth_serve(testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]) -> Iterator[tuple]:
    """`sleuth keys create --org acme`, then `sleuth serve` as a subprocess on a free port."""
    code, key, err = run(["keys", "create", "--org", "acme"], capsys)
    assert code == 0, err
    port = free_port()
    proc = start_serve(port)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(base, proc)
        yield base, key.strip(), proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)


def _wait_ready(base: str, proc: subprocess.Popen[str], log: IO[str] | None = None) -> None:
    """Until `sleuth serve` answers; if it exits first, the failure carries its log (from the
    pipe, or from the file `log` names: a test's folder is gone by the time CI's log is read)."""
    for _ in range(300):
        if proc.poll() is not None:
            said = proc.stderr.read() if proc.stderr else ""
            if log is not None:
                log.flush()
                said = Path(log.name).read_text(encoding="utf-8", errors="replace")[-4000:]
            raise AssertionError(f"sleuth serve exited with {proc.returncode}: {said}")
        try:
            if httpx.get(base + "/healthz").status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise AssertionError("sleuth serve did not answer /healthz")


def test_the_sdk_unchanged_against_sleuth_serve(
    sleuth_serve: tuple, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    base, key, proc = sleuth_serve
    monkeypatch.setenv("XDIVE_BASE_URL", base + "/api")
    monkeypatch.setenv("XDIVE_API_KEY", key)
    with XDive() as client:
        assert client.whoami() == {
            "orgId": "acme", "scopes": ["research", "search", "extract"], "plan": "self-hosted"
        }  # fmt: skip
        quick = client.research(Q, depth="quick")
        assert "90 days" in quick["answer"] and "[1]" in quick["answer"]
        assert quick["citations"] and quick["citations"][0]["url"].startswith("http://")
        assert quick["confidence"] in ("high", "medium", "low") and quick["cached"] is False
        deep = client.research(
            "How long does Example Cloud keep audit logs, and how can they be exported?",
            depth="deep",
        )
        assert deep["answer"].startswith("## ") and deep["usage"]["rounds"] >= 1
        found = client.search("Example Cloud audit log retention", limit=5)
        assert found["results"] and all({"title", "url", "snippet", "score"} <= r.keys()
                                        for r in found["results"])  # fmt: skip
        advanced = client.search(
            "Example Cloud audit log retention", search_depth="advanced", include_answer=True
        )
        read = [r for r in advanced["results"] if "passages" in r]
        assert read and all(r["relevance_score"] >= 0 and r["passages"] for r in read)
        assert advanced["answer"] and "[" in advanced["answer"] and advanced["citations"]
    code, out, _ = run(["sessions", "ls", "--org", "acme"], capsys)
    assert code == 0 and len(out.strip().splitlines()) == 2  # the quick and the deep run
    proc.send_signal(signal.SIGTERM)
    _, log = proc.communicate(timeout=60)
    # uvicorn shuts down gracefully, then re-raises the signal it caught (exit -15).
    assert proc.returncode in (0, -signal.SIGTERM) and "Finished server process" in log
    assert '"route":"/api/orgs/{org}/research"' in log and '"org":"acme"' in log
    assert key.split("_")[-1] not in log  # the secret part never reaches a log line


def test_readme_curl_example(sleuth_serve: tuple) -> None:
    """The curl example of docs/http-api.md, run as written (only the port differs); the
    README's copy of it is the same command."""
    base, key, _ = sleuth_serve
    docs = (ROOT / "docs" / "http-api.md").read_text(encoding="utf-8")
    block = docs.split("```sh\n# ask a question\n", 1)[1].split("```", 1)[0]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert block.strip() in readme, "the README's curl example differs from docs/http-api.md"
    script = block.replace("http://127.0.0.1:8000", base)
    done = subprocess.run(
        ["bash", "-c", script], env={**os.environ, "SLEUTH_KEY": key},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    import json

    answer = json.loads(done.stdout)
    assert "[1]" in answer["answer"] and answer["citations"]


@pytest.fixture
def llm() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer("openai").start()
    yield server
    server.stop()


def test_schema_through_the_fake_llm(testweb_env: TestWeb, llm: FakeLLMServer) -> None:
    llm.script(Reply(chunks=['```json\n{"default_retention_days": 90}\n```']))
    defaults = {
        "search": "searxng", "search_fallback": "none", "browser": "never",
        "base_url": llm.url, "api_key": "test-key", "model": "gpt-4o-mini",
    }  # fmt: skip
    schema = {
        "type": "object",
        "properties": {"default_retention_days": {"type": ["integer", "null"]}},
    }
    with serving(defaults=defaults) as served, XDive(served.key("acme"), base_url=served.api) as c:
        result = c.research(Q, schema=schema)
    assert result["data"] == {"default_retention_days": 90} and "answer" not in result
    assert len(result["citations"]) == len(result["sources"]) >= 1
    assert len(llm.received) == 1 and "90 days" in str(llm.received[0].body)


def test_quota_exceeded_is_raised_on_402(testweb_env: TestWeb) -> None:
    with serving() as served:
        client = XDive(served.key("acme", searches=1), base_url=served.api)
        client.research(Q)
        with pytest.raises(QuotaExceeded) as refused:
            client.research("When did Example Cloud publish its audit log guidance?")
        assert refused.value.status == 402 and refused.value.code == "QUOTA_EXCEEDED"
        assert served.metric("sleuth_quota_refusals_total") == 1
        client.close()


def _in_background(target: object) -> tuple[threading.Thread, list]:
    out: list = []
    thread = threading.Thread(target=lambda: out.append(target()), daemon=True)  # type: ignore[operator]
    thread.start()
    return thread, out


def _wait_for_a_run(served: Served) -> None:
    for _ in range(500):
        if served.metric("sleuth_runs_in_flight") == 1:
            return
        time.sleep(0.01)
    raise AssertionError("the slow run never started")


def test_sdk_retries_503_server_busy_until_a_slot_frees(testweb_env: TestWeb) -> None:
    add_slow_page(testweb_env)
    with serving(ServerConfig(run_slots=1)) as served:
        key = served.key("acme")
        slow = lambda: httpx.post(  # noqa: E731
            f"{served.api}/orgs/acme/research", json={"query": SLOW_Q},
            headers={"X-API-Key": key}, timeout=60,
        )  # fmt: skip
        thread, first = _in_background(slow)
        _wait_for_a_run(served)
        with XDive(key, base_url=served.api, org_id="acme") as client:
            result = client.research(Q)
        thread.join(60)
        assert first[0].status_code == 200 and "90 days" in result["answer"]
        busy = served.metric(
            "sleuth_http_responses_total", route="/api/orgs/{org}/research", status="503"
        )
        assert busy >= 1


def test_sdk_retries_409_until_the_first_attempt_has_answered(testweb_env: TestWeb) -> None:
    add_slow_page(testweb_env)
    with serving() as served:
        key = served.key("acme")
        same = {"Idempotency-Key": "order-1234"}
        first_call = lambda: httpx.post(  # noqa: E731
            f"{served.api}/orgs/acme/research", json={"query": SLOW_Q, "depth": "quick"},
            headers={"X-API-Key": key, **same}, timeout=60,
        )  # fmt: skip
        thread, first = _in_background(first_call)
        _wait_for_a_run(served)
        with XDive(key, base_url=served.api, org_id="acme") as client:
            # The SDK's own transport with the same key its retries would carry.
            response = client._request(
                "POST", "/orgs/acme/research", json={"query": SLOW_Q, "depth": "quick"},
                headers=same,
            )  # fmt: skip
        thread.join(60)
        assert response.status_code == 200 and response.headers["Idempotent-Replayed"] == "true"
        assert response.json() == first[0].json()
        conflicts = served.metric(
            "sleuth_http_responses_total", route="/api/orgs/{org}/research", status="409"
        )
        assert conflicts >= 1
        assert served.metric("sleuth_runs_total", depth="quick", outcome="ok") == 1


def test_a_run_in_flight_finishes_and_is_saved_when_the_server_stops(
    sleuth_serve: tuple, testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    """SIGTERM: the server stops taking requests, the run in flight completes, its response is
    sent and its session saved, then the process ends."""
    base, key, proc = sleuth_serve
    add_slow_page(testweb_env, delay_s=2.0)
    call = lambda: httpx.post(  # noqa: E731
        f"{base}/api/orgs/acme/research", json={"query": SLOW_Q},
        headers={"X-API-Key": key}, timeout=60,
    )  # fmt: skip
    thread, answered = _in_background(call)
    for _ in range(500):  # the run has started once its page is being fetched
        if testweb_env.hits_for("slowpoke.example.org"):
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    thread.join(60)
    _, log = proc.communicate(timeout=60)
    assert answered[0].status_code == 200 and "[1]" in answered[0].json()["answer"], log
    code, out, _ = run(["sessions", "ls", "--org", "acme"], capsys)
    assert code == 0 and "slowpoke" in out.lower()


def test_serve_with_two_workers(testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]) -> None:
    code, key, _ = run(["keys", "create", "--org", "acme"], capsys)
    assert code == 0
    port = free_port()
    proc = start_serve(port, "--workers=2")
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(base, proc)
        with XDive(key.strip(), base_url=base + "/api") as client:
            assert client.whoami()["orgId"] == "acme"
            assert "90 days" in client.research(Q)["answer"]
    finally:
        proc.send_signal(signal.SIGTERM)
        _, log = proc.communicate(timeout=60)
    assert log.count("Started server process") == 2
