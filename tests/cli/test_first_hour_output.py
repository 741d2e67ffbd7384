"""Issue 11, "The first hour", items 7-11 and the default run limits: the output a new user
reads, reproduced through the real entry point (a pseudo-terminal where it matters)."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sleuth.app.application import DEEP_LIMIT_S, QUICK_LIMIT_S, Sleuth
from tests.cli.helpers import run
from tests.fetch.conftest import make_pdf
from tests.llm.fake_servers import FakeLLMServer, Received, Reply
from tests.testweb.server import TestWeb

ROOT = Path(__file__).parents[2]
Q = "How long does Example Cloud keep audit logs by default?"


def ask_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, out, err = run([*args, "--json"], capsys)
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def in_a_terminal(args: list[str], env: dict[str, str]) -> str:
    """What a user sees running `sleuth ARGS` in a terminal: stdout and stderr on one pty."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "sleuth.cli", *args],
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
        env={**os.environ, **env, "COLUMNS": "200"},
        cwd=ROOT,
    )
    os.close(follower)
    chunks: list[bytes] = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    assert proc.wait(timeout=120) == 0, b"".join(chunks).decode(errors="replace")[-2000:]
    return b"".join(chunks).decode("utf-8", errors="replace").replace("\r\n", "\n")


@pytest.fixture
def llm() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer("openai").start()
    yield server
    server.stop()


# -- 7. structured output without --json ------------------------------------------------------


def test_schema_output_prints_the_filled_data_and_its_sources(
    testweb_env: TestWeb, llm: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"days": {"type": "integer"}}}))
    llm.script(Reply(chunks=['{"days": 90}']))
    args = ["ask", Q, "--search=searxng", f"--schema={schema}", f"--base-url={llm.url}"]
    code, out, err = run([*args, "--api-key=k"], capsys)
    assert code == 0, err
    assert f'# {Q}\n\n```json\n{{\n  "days": 90\n}}\n```\n\n## Sources\n\n1. [' in out


# -- 8. continue deepens -----------------------------------------------------------------------


def test_continue_honours_deep_and_max_sources_and_keeps_the_parent_sources(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    parent = ask_json(["ask", Q, "--search=searxng", "--max-sources=2"], capsys)
    assert len(parent["sources"]) == 2
    testweb_env.reset()
    child = ask_json(
        ["continue", parent["session_id"], "--deep=1", "--max-sources=8", "--search=searxng"],
        capsys,
    )
    urls = [s["url"] for s in child["sources"]]
    assert {s["url"] for s in parent["sources"]} <= set(urls), "the parent's sources are kept"
    assert 2 < len(urls) <= 8, "--max-sources=8 took effect"
    assert child["usage"]["rounds"] >= 1 and child["answer"].startswith("## "), "deep report"
    assert len(child["queries"]) >= 2, "deep mode planned sub-queries"
    assert not {u for u in urls[:2] if any(u in hit for hit in testweb_env.hits)}
    _, out, _ = run(["sessions", "ls"], capsys)
    line = next(x for x in out.splitlines() if x.startswith(child["session_id"]))
    assert f"· {len(urls)} sources ·" in line, "the parent's sources are counted"


# -- 9. dates ------------------------------------------------------------------------------------

OLD_PAGE = "http://history.example.org/audit-logs-2007"
OLD_HTML = """<!doctype html><html><head><title>Audit logs in 2007</title>
<script type="application/ld+json">{"@type": "Article", "datePublished": "2007"}</script>
</head><body><article><h1>Audit logs in 2007</h1>
<p>In 2007 Example Cloud kept audit logs for 30 days by default, a retention period that was
extended years later when customers asked auditors for longer histories of account activity.</p>
<p>The 2007 audit log retention default applied to every plan, including the free one, and
logs older than 30 days were deleted without notice to the account owner.</p>
</article></body></html>"""


def test_year_only_dates_and_since_a_year(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    testweb_env.add_page(OLD_PAGE, OLD_HTML)
    result = {"url": OLD_PAGE, "title": "Audit logs in 2007", "content": "audit logs 2007"}
    testweb_env.script_search("audit logs", [result])
    args = ["ask", Q, "--search=searxng", "--search-fallback=none", "--no-cache"]
    data = ask_json(args, capsys)
    assert data["sources"][0]["published"] == "2007", "a year-only date is read"
    code, out, err = run([*args, "--since=2024", "--verbose"], capsys)
    assert code == 3 and out == ""
    assert "published 2007, before 2024-01-01 (since)" in err


# -- 10. smaller defects ---------------------------------------------------------------------


def test_pdf_max_pages_applies_to_included_pdfs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pdf = tmp_path / "manual.pdf"
    pdf.write_bytes(make_pdf(["Alpha page about kettles.", "Beta page.", "The zeppelin hangar."]))
    args = ["ask", "zeppelin hangar", "--search=none", f"--include={pdf}", "--no-sessions"]
    code, out, err = run([*args, "--pdf-max-pages=1", "--json"], capsys)
    # Page 1 alone matches nothing, so it is read whole (search.local); page 3 never was.
    assert code == 0 and "reading the file (1 section)" in err, err
    read = [p["text"] for s in json.loads(out)["sources"] for p in s["passages"]]
    assert read and not any("zeppelin" in text.lower() for text in read), "page 3 was not read"
    code, out, _ = run(args, capsys)
    assert code == 0 and "zeppelin hangar." in out.lower()


def test_search_limit_holds_for_a_fan_out(
    testweb_env: TestWeb,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = [{"href": f"http://ddg{n}.example/", "title": f"r{n}", "body": "x"} for n in range(5)]
    (tmp_path / "ddg.json").write_text(json.dumps(rows))
    monkeypatch.setenv("SLEUTH_DDG_REPLAY", str(tmp_path / "ddg.json"))
    monkeypatch.setenv("SLEUTH_DDG_DELAY_MS", "0")
    args = ["search", "audit log retention", "--search=multi:searxng,duckduckgo", "--limit=3"]
    code, out, err = run([*args, "--json"], capsys)
    assert code == 0, err
    assert len(json.loads(out)) == 3


def planner_repeating_the_question(received: Received) -> Reply:
    prompt = json.dumps(received.body["messages"])
    if "You plan web searches" in prompt:
        return Reply(chunks=[json.dumps([Q.lower(), "audit log export"])])
    if "You review a draft" in prompt:
        return Reply(chunks=['{"complete": true}'])
    return Reply(chunks=["## Retention\n\nAudit logs are kept for 90 days by default [1]."])


def test_deep_mode_never_searches_the_question_twice(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    server = FakeLLMServer("openai", planner_repeating_the_question).start()
    try:
        args = ["ask", Q, "--search=searxng", "--deep=1", f"--base-url={server.url}", "-v"]
        code, _, err = run([*args, "--api-key=k"], capsys)
    finally:
        server.stop()
    assert code == 0, err
    searched = [line for line in err.splitlines() if line.startswith("search.done")]
    assert sum(Q.lower() in line.lower() for line in searched) == 1, searched
    assert any("audit log export" in line for line in searched)


def test_a_broken_plugin_is_left_out_and_doctor_names_it(
    testweb_env: TestWeb,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import sleuth.registry

    dist = tmp_path / "sleuth_broken_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: sleuth-broken-plugin\n")
    (dist / "entry_points.txt").write_text("[sleuth.plugins]\nbroken = no_such_module:register\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sleuth.registry, "_loaded", None)
    code, out, err = run(["search", "audit log retention", "--search=searxng"], capsys)
    assert code == 0 and "Traceback" not in err and out
    code, out, _ = run(["doctor", "--search=searxng"], capsys)
    assert "WARN broken       not loaded: ModuleNotFoundError" in out


@pytest.mark.extra("browser")
def test_doctor_checks_the_configured_remote_browser(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    endpoint = "http://127.0.0.1:9"
    code, out, _ = run(["doctor", "--search=searxng", f"--browser-cdp-endpoint={endpoint}"], capsys)
    line = next(x for x in out.splitlines() if x.split()[1:2] == ["cdp"])
    assert line.startswith("FAIL") and code == 1, line  # issue 27: was a warning and exit 0
    assert "no chromium on PATH" not in line


def test_ddgs_is_given_the_proxy_of_the_environment() -> None:
    from sleuth.app.assemble import backend_settings
    from sleuth.search.duckduckgo import ddgs_client
    from sleuth.settings import Settings

    proxy = "http://127.0.0.1:3128"
    settings = backend_settings(Settings(env={"HTTPS_PROXY": proxy}))
    assert ddgs_client(settings)._proxy == proxy  # type: ignore[attr-defined]


def test_terminal_progress_and_a_deep_report_shown_once(testweb: TestWeb) -> None:
    seen = in_a_terminal(["ask", Q, "--search=searxng", "--deep=1", "--no-sessions"], testweb.env())
    assert re.search(r"reading: \d+ of \d+ read", seen), "progress shows the total"
    assert not re.search(r"writing \([a-z]+\)\S", seen), "status text ran into the report"
    report = seen.split("confidence · ")[0]
    assert re.search(rf"(^|\n|\x1b\[2K)# {re.escape(Q)}\n", report), "the question heads it"
    rounds = 1 + report.count(" (deep)\n")  # each later round's draft has a "## Round N" line
    first_heading = next(line for line in report.splitlines() if line.startswith("## "))
    assert report.count(first_heading + "\n") == rounds, "the final report is not repeated"
    assert report.count("\n---\n") == rounds - 1 and report.count("## Sources") == 1


def test_demo_progress_does_not_report_the_none_backend() -> None:
    args = ["ask", "How does Sleuth check citations?", "--search=none", "--include=docs/"]
    seen = in_a_terminal([*args, "--no-sessions"], {})
    assert re.search(r"found \d+ results \(local\)", seen)
    assert "(none)" not in seen and "found 0 results" not in seen
    # issue 27: the 0 results of `none` repeated the same line, and local files (nothing to
    # fetch) showed as "reading: 0 of 0 read"
    assert len(re.findall(r"found \d+ results \(local\)", seen)) == 1, seen
    assert "0 of 0" not in seen and "reading:" not in seen
    assert re.search(r"confidence · \w+ · .* · \d+ sources? · ", seen)


def test_a_count_of_one_is_singular() -> None:
    from sleuth.text.display import counted

    assert [counted(n, "source") for n in (0, 1, 2)] == ["0 sources", "1 source", "2 sources"]
    assert counted(1, "passage") == "1 passage" and counted(3, "query", "queries") == "3 queries"


def test_show_and_export_mark_uncited_sources_and_last_names_the_newest(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    data = ask_json(["ask", Q, "--search=searxng"], capsys)
    assert any(s["number"] not in {c["number"] for c in data["citations"]} for s in data["sources"])
    code, shown, err = run(["show", "last"], capsys)
    assert code == 0 and shown.startswith(f"# {Q}\n") and "(not cited)" in shown
    assert err.startswith("confidence · "), "show prints the confidence line as ask does"
    code, page, _ = run(["export", "last", "--format=html"], capsys)
    assert code == 0 and 'class="uncited"' in page and "not cited" in page
    quote = data["citations"][0]["quote"]
    assert f'<blockquote class="quote">{quote[:40]}' in page.replace("&#x27;", "'")


def test_completion_offers_backends_and_session_ids(
    testweb_env: TestWeb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    session = ask_json(["ask", Q, "--search=searxng"], capsys)["session_id"]
    monkeypatch.setenv("_SLEUTH_COMPLETE", "bash_complete")
    for words, cword, expected in (
        ("sleuth ask Q --search wiki", 4, "wikipedia"),
        ("sleuth show ", 2, session),
        ("sleuth show la", 2, "last"),
    ):
        monkeypatch.setenv("COMP_WORDS", words)
        monkeypatch.setenv("COMP_CWORD", str(cword))
        code, out, _ = run([], capsys)
        assert code == 0 and f"plain,{expected}" in out.splitlines(), (words, out)


async def test_default_run_limits_are_the_seeds() -> None:
    async with Sleuth() as app:
        assert app.prepare(Q).request.max_runtime_s == QUICK_LIMIT_S == 45.0
        assert app.prepare(Q, deep=2).request.max_runtime_s == DEEP_LIMIT_S == 150.0
        assert app.prepare(Q, max_runtime="10s").request.max_runtime_s == 10.0


# -- 11. reference output ------------------------------------------------------------------------


def test_ask_output_has_a_heading_fetch_times_and_json_has_the_trace(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["ask", Q, "--search=searxng"], capsys)
    assert code == 0 and out.startswith(f"# {Q}\n\n")
    sources = out.split("\n## Sources\n\n", 1)[1].splitlines()
    assert all(re.match(r"\d+\. \[.+\]\(http.+\) — fetched \d{4}-\d\d-\d\d", s) for s in sources)
    data = ask_json(["ask", Q, "--search=searxng", "--deep=1"], capsys)
    assert data["plan"] and data["rounds"][0]["queries"][0] == Q
    assert data["rounds"][0]["searches"] and "read" in data["rounds"][0]
    code, out, _ = run(["show", data["session_id"], "--json"], capsys)
    saved = json.loads(out)
    assert saved["plan"] == data["plan"] and saved["rounds"] == data["rounds"]
