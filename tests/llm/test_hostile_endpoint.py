"""An LLM endpoint that misbehaves (issue 12, item 9): an error body echoing the API key is never
printed, and a runaway reply is refused rather than kept and saved."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sleuth.llm.keys import KeyRing
from tests.cli.helpers import run
from tests.llm.fake_servers import FakeLLMServer, Reply
from tests.testweb.server import TestWeb

Q = "How long does Example Cloud keep audit logs by default?"
KEY = "sk-live-7f3a9c2e4b1d8f6a0c5e3b2d"


@pytest.fixture
def llm() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer("openai").start()
    yield server
    server.stop()


def ask(llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """With --require-llm, so the model's failure ends the run (without it the extractive
    writer answers instead, and the failure is a notice: both paths must hide the key)."""
    args = ["ask", Q, "--search=searxng", f"--base-url={llm.url}", f"--api-key={KEY}"]
    return run([*args, "--model=gpt-4o-mini", "--no-sessions", "--require-llm"], capsys)


def test_an_error_body_echoing_the_key_is_printed_without_it(
    testweb_env: TestWeb, llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    echo = f"Incorrect API key provided: {KEY}. Key prefix {KEY[:14]} is not valid."
    llm.script(*[Reply(status=400, error=echo) for _ in range(6)])
    code, out, err = ask(llm, capsys)
    assert code == 1 and KEY not in out + err and KEY[:14] not in out + err
    assert "[redacted]" in err and "Traceback" not in err


def test_a_reply_of_megabytes_is_refused(
    testweb_env: TestWeb, llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    runaway = ["Audit logs are kept for 90 days [1]. " * 30_000] * 3  # about 3.3 million chars
    llm.script(Reply(chunks=['{"type": "single"}']), Reply(chunks=runaway))
    code, out, err = ask(llm, capsys)
    assert code == 1 and "refused" in err and "Traceback" not in err
    assert len(out) < 100_000


def test_redact_hides_whole_and_partial_keys() -> None:
    ring = KeyRing((KEY, "short"))
    text = f"bad key {KEY}; prefix {KEY[:12]}; other sk-live-unrelated-words short"
    hidden = ring.redact(text)
    assert KEY not in hidden and KEY[:12] not in hidden
    assert "sk-live-unrelated-words" in hidden and "short" in hidden  # too short to matter


def test_without_require_llm_the_fallback_notice_hides_the_key_too(
    testweb_env: TestWeb, llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    echo = f"Incorrect API key provided: {KEY}. Key prefix {KEY[:14]} is not valid."
    llm.script(*[Reply(status=400, error=echo) for _ in range(6)])
    args = ["ask", Q, "--search=searxng", f"--base-url={llm.url}", f"--api-key={KEY}"]
    code, out, err = run([*args, "--model=gpt-4o-mini", "--no-sessions"], capsys)
    assert code == 0 and "90 days" in out  # the extractive writer answered
    assert KEY not in out + err and KEY[:14] not in out + err and "[redacted]" in err
