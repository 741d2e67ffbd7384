"""`sleuth ask` with an LLM endpoint on loopback (the OpenAI SDK over real HTTP), deep mode and
structured output through the CLI."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.cli.helpers import run
from tests.llm.fake_servers import FakeLLMServer, Received, Reply
from tests.testweb.server import TestWeb

Q = "How long does Example Cloud keep audit logs by default?"


@pytest.fixture
def llm() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer("openai").start()
    yield server
    server.stop()


def llm_args(server: FakeLLMServer) -> list[str]:
    return [f"--base-url={server.url}", "--api-key=test-key", "--model=gpt-4o-mini"]


def test_llm_writes_a_cited_answer_and_the_cost_line_is_printed(
    testweb_env: TestWeb, llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    llm.script(
        Reply(chunks=['{"type": "single"}']),
        Reply(chunks=["Audit logs are retained for ", "90 days by default [1][9]."]),
    )
    code, out, err = run(["ask", Q, "--search=searxng", "--json", *llm_args(llm)], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert "[9]" not in data["answer"] and "[1]" in data["answer"]
    assert data["usage"]["llm"]["calls"] == 2
    assert data["usage"]["plan"] == "single"
    assert "cost · " in err


def test_max_cost_zero_exits_2_before_any_model_call(
    testweb_env: TestWeb, llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(
        [
            "ask",
            Q,
            "--search=searxng",
            "--max-cost=0",
            *llm_args(llm),
            "--model=some-unpriced-model",
        ],
        capsys,
    )
    assert code == 2, err
    assert "unpriced" in err or "cap" in err
    assert llm.received == []


def test_deep_without_llm_prints_a_sectioned_report(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        [
            "ask",
            "How long does Example Cloud keep audit logs, and how can they be exported?",
            "--search=searxng",
            "--deep",
            "--json",
        ],
        capsys,
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["answer"].count("\n## ") >= 1 and data["answer"].startswith("## ")
    assert data["usage"]["rounds"] >= 1 and len(data["queries"]) >= 2
    assert data["citations"]


def test_schema_without_llm_is_a_clear_error(
    testweb_env: TestWeb, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = tmp_path / "s.json"
    schema.write_text('{"type": "object", "properties": {"days": {"type": "integer"}}}')
    code, out, err = run(["ask", Q, "--search=searxng", f"--schema={schema}"], capsys)
    assert code == 1 and out == "" and "--schema needs an LLM" in err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[1, 2]", "must be a JSON object"),
        ("{not json", "is not JSON"),
        ('{"type": "string"}', "must describe an object"),
    ],
)
def test_bad_schema_files(
    content: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = tmp_path / "s.json"
    schema.write_text(content)
    code, _, err = run(["ask", Q, "--search=none", f"--schema={schema}"], capsys)
    assert code == 1 and message in err


def test_schema_with_llm_prints_data(
    testweb_env: TestWeb, llm: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = tmp_path / "s.json"
    schema.write_text(
        json.dumps(
            {
                "type": "object",
                "required": ["days"],
                "properties": {"days": {"type": ["integer", "null"]}},
            }
        )
    )
    llm.script(Reply(chunks=['```json\n{"days": 90}\n```']))
    code, out, err = run(
        ["ask", Q, "--search=searxng", f"--schema={schema}", "--json", *llm_args(llm)], capsys
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["data"] == {"days": 90} and "answer" not in data
    assert len(data["citations"]) == len(data["sources"])


def test_llm_endpoint_that_hangs_times_out_with_a_clear_error(
    testweb_env: TestWeb,
    llm: FakeLLMServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SLEUTH_LLM_TIMEOUT", "1")
    llm.script(*[Reply(hang=True) for _ in range(8)])
    args = ["ask", Q, "--search=searxng", *llm_args(llm), "--require-llm"]
    code, out, err = run(args, capsys)
    assert code == 1 and out == ""
    assert "Traceback" not in err and "timed out" in err.lower() and llm.url in err


def _writer_thinks(thought: list[str], chunks: list[str]) -> Callable[[Received], Reply]:
    """Triage gets a plain single-step verdict; the writer streams `thought` then `chunks`."""

    def reply(received: Received) -> Reply:
        if "Classify a research question" in json.dumps(received.body):
            return Reply(chunks=['{"type": "single"}'])
        return Reply(reasoning=thought, chunks=chunks)

    return reply


def test_model_reasoning_goes_to_verbose_never_into_the_answer(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    thought = ["The user asks about ", "retention. "]
    chunks = ["<think>Source 1 says ninety.</think>", "Audit logs are kept 90 days [1]."]
    llm = FakeLLMServer("openai", responder=_writer_thinks(thought, chunks)).start()
    try:
        args = ["ask", Q, "--search=searxng", *llm_args(llm)]
        code, out, err = run([*args, "--verbose"], capsys)
        assert code == 0, err
        assert "writer.reasoning:\nThe user asks about retention. Source 1 says ninety.\n" in err
        assert "Audit logs are kept 90 days [1]." in out
        assert "ninety" not in out and "user asks" not in out

        code, out, err = run([*args, "--json"], capsys)
        assert code == 0, err
        assert "ninety" not in out + err and "user asks" not in out + err  # only with --verbose
        assert json.loads(out)["answer"].startswith("Audit logs are kept 90 days [1].")
    finally:
        llm.stop()
