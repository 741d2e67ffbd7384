"""Issue 11, "The first hour", items 1-6: each command a new user ran, reproduced through the
real entry point, with the fixed behaviour asserted."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.cli.helpers import run
from tests.testweb.server import TestWeb

ROOT = Path(__file__).parents[2]
Q = "How long does Example Cloud keep audit logs by default?"


def closed_port() -> int:
    """A loopback port nothing listens on (connections are refused at once)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# -- 1. `make test` on a fresh clone ---------------------------------------------------------


def readme_block(marker: str) -> str:
    """The README block `.ci/run` runs after `marker`, extracted by `.ci/run`'s own function."""
    script = (ROOT / ".ci" / "run").read_text()
    function = script[script.index("readme_block() {") : script.index("\n}\n") + 3]
    done = subprocess.run(
        ["bash", "-c", f'{function}\nreadme_block "$1" "$2"', "-", marker, str(ROOT / "README.md")],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def test_ci_runs_the_readme_quick_start_and_install_block_as_written() -> None:
    quick = readme_block("<!-- quickstart -->").splitlines()
    assert [line.split()[:2] for line in quick] == [["make", "demo"], ["make", "test"]]
    install = readme_block("<!-- install -->")
    assert "pip install" in install and "~/.local/bin/sleuth" in install
    script = (ROOT / ".ci" / "run").read_text()
    fresh, extras = script.index("git clone"), script.index("make setup EXTRAS=dev,browser,local")
    assert fresh < extras, "the fresh clone runs before anything extra is installed"
    assert '"$FRESH/home/.local/bin/sleuth" --version' in script


def test_extra_dependent_tests_skip_with_a_reason_when_the_extra_is_absent(
    tmp_path: Path,
) -> None:
    """`make test` with only the dev extra: the browser tests skip, naming what to install."""
    hide = "import sys; sys.modules['playwright'] = None; import pytest; "
    files = ["tests/fetch/test_browser.py", "tests/export/test_screenshot.py"]
    args = [*files, "-q", "-rs", "-p", "no:cacheprovider", f"--basetemp={tmp_path / 'bt'}"]
    done = subprocess.run(
        [sys.executable, "-c", hide + f"sys.exit(pytest.main({args!r}))"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert "failed" not in done.stdout
    assert "needs the browser extra (playwright not installed): pip install '.[browser]'" in (
        done.stdout
    )


# -- 2. offline or blocked search -------------------------------------------------------------


@pytest.fixture
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """DuckDuckGo as ddgs reports a failed DNS lookup (naming another engine, as it does),
    and a Wikipedia endpoint that refuses connections."""
    replay = tmp_path / "ddg.json"
    message = "DNSError: DNSError('error sending request for url (https://search.brave.com/x)')"
    replay.write_text(json.dumps({"raise": "DDGSException", "message": message}))
    monkeypatch.setenv("SLEUTH_DDG_REPLAY", str(replay))
    monkeypatch.setenv("SLEUTH_DDG_DELAY_MS", "0")
    monkeypatch.setenv("SLEUTH_WIKIPEDIA_ENDPOINT", f"http://127.0.0.1:{closed_port()}")


def test_no_network_is_said_in_words_with_what_works_instead(
    offline: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["ask", "what is rust"], capsys)
    assert (code, out) == (3, "")
    assert "sleuth: no network: could not reach duckduckgo or wikipedia" in err, err
    assert "search failed (duckduckgo: could not reach the search service (DNS lookup" in err
    assert "brave" not in err and "duckduckgo: duckduckgo" not in err
    assert "found nothing" not in err
    hint = next(line for line in err.splitlines() if line.startswith("sleuth: hint: "))
    assert "--search=none --include=PATH" in hint and "searxng" in hint and "doctor" in hint


def test_no_results_is_not_a_failure(
    offline: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    monkeypatch.setenv("SLEUTH_DDG_REPLAY", str(empty))
    code, _, err = run(["ask", "what is rust", "--search-fallback=none"], capsys)
    assert code == 3
    assert "sleuth: search found no results for the question" in err
    assert "no network" not in err and "rephrase the question" in err


def test_doctor_says_no_network_and_what_works(
    offline: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["doctor"], capsys)
    assert code == 1
    search = next(line for line in out.splitlines() if line.startswith("FAIL duckduckgo"))
    assert "no network? duckduckgo: could not reach the search service" in search
    assert "brave" not in out
    assert "hint: without a network, answer from your own files: --search=none" in out
    assert "sleuth doctor" not in out.split("hint: ", 1)[1], "doctor does not suggest itself"


# -- 3. an unreachable model -------------------------------------------------------------------


def test_unreachable_model_falls_back_to_the_extractive_writer_naming_it(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    endpoint = f"http://127.0.0.1:{closed_port()}/v1"
    code, out, err = run(["ask", Q, "--search=searxng", f"--base-url={endpoint}", "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert data["writer"] == "extractive"
    assert "90 days" in data["answer"] and data["citations"]
    notice = next(line for line in err.splitlines() if "the model failed" in line)
    assert endpoint in notice
    assert "answering with the extractive writer" in notice and "--require-llm" in notice


def test_require_llm_makes_an_unreachable_model_an_error(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    endpoint = f"http://127.0.0.1:{closed_port()}/v1"
    args = ["ask", Q, "--search=searxng", f"--base-url={endpoint}", "--require-llm"]
    code, out, err = run(args, capsys)
    assert (code, out) == (1, "")
    last = err.strip().splitlines()[-1]
    assert last.startswith("sleuth: gpt-4o-mini at " + endpoint), last
    assert "--require-llm is set, so there is no fallback" in last


def test_deep_run_with_an_unreachable_model_plans_and_writes_without_it(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    endpoint = f"http://127.0.0.1:{closed_port()}/v1"
    args = ["ask", Q, "--search=searxng", "--deep=1", f"--base-url={endpoint}", "--json"]
    code, out, err = run(args, capsys)
    assert code == 0, err
    assert json.loads(out)["writer"] == "extractive"
    assert err.count("the model failed") == 1, "a dead endpoint is waited on once per run"


# -- 4. --browser=always without playwright ----------------------------------------------------


def test_browser_always_without_playwright_is_refused_at_start(
    testweb_env: TestWeb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "playwright", None)
    code, out, err = run(["ask", Q, "--search=searxng", "--browser=always"], capsys)
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        "sleuth: --browser=always reads every page in Chromium, but playwright is not "
        "installed: pip install '.[browser]'"
    ]
    assert testweb_env.searches == [], "refused before any search"


# -- 5. one meaning per environment variable ---------------------------------------------------


def test_output_paths_and_command_options_never_come_from_the_environment(
    testweb_env: TestWeb,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SLEUTH_TAG", "client-x")
    monkeypatch.setenv("SLEUTH_TAGS", "ignored")
    code, out, err = run(["ask", Q, "--search=searxng", "--json"], capsys)
    assert code == 0, err
    session = json.loads(out)["session_id"]
    monkeypatch.setenv("SLEUTH_OUT", "answer.md")
    monkeypatch.setenv("SLEUTH_FORMAT", "json")
    monkeypatch.setenv("SLEUTH_LIMIT", "1")
    code, out, _ = run(["export", session], capsys)
    assert code == 0 and out.startswith("<!DOCTYPE html>"), "SLEUTH_FORMAT is not read"
    code, out, _ = run(["open", session, "--no-browser"], capsys)
    assert code == 0 and "answer.md" not in out
    assert not (tmp_path / "answer.md").exists(), "SLEUTH_OUT wrote nothing"
    code, out, _ = run(["search", "audit log retention", "--search=searxng", "--json"], capsys)
    assert code == 0 and len(json.loads(out)) > 1, "SLEUTH_LIMIT is not read by search"
    code, out, _ = run(["sessions", "ls"], capsys)
    assert "#client-x" in out and "#ignored" not in out, "--tag reads SLEUTH_TAG"


# -- 6. getting started ------------------------------------------------------------------------


def test_license_help_and_install_section_a_newcomer_can_use(
    capsys: pytest.CaptureFixture[str],
) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    license_text = (ROOT / "LICENSE").read_text()
    assert project["license"] == "MIT" and license_text.startswith("MIT License")
    code, out, _ = run(["ask", "--help"], capsys)
    assert code == 0 and "DESIGN" not in out
    assert "docs/getting-started.md, 'The result'" in " ".join(out.split())
    readme = (ROOT / "README.md").read_text()
    assert "\n## Install\n" in readme
    assert "pip install 'sleuth[" not in readme, "there is no sleuth on PyPI"
