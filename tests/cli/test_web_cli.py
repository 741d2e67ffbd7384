"""Issue 4 and 6 must-shows through the real entry point: every backend previewed from recorded
responses, hostile search results never requested, fallback recovery, authority ordering and
near-duplicate removal on the test web, doctor."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from sleuth.registry import registries
from tests.cli.helpers import run
from tests.search.replay import MODEL_KEYS, ReplayServer
from tests.testweb.server import TestWeb


@pytest.fixture
def replay_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[ReplayServer]:
    with ReplayServer() as replay:
        for name, value in replay.env().items():
            monkeypatch.setenv(name, value)
        yield replay


WEB_BACKENDS = sorted(e.name for e in registries().search if not e.offline)


@pytest.mark.parametrize("name", WEB_BACKENDS)
def test_search_preview_for_every_backend(
    name: str,
    replay_env: ReplayServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for variable, value in MODEL_KEYS.items():  # for openai and gemini (a preview runs no model)
        monkeypatch.setenv(variable, value)
    spec = "multi:duckduckgo,wikipedia" if name == "multi" else name
    code, out, err = run(["search", "rust async runtime", f"--search={spec}", "--json"], capsys)
    assert code == 0, err
    results = json.loads(out)
    assert results and all(
        {"url", "title", "snippet", "backend", "rank", "published"} <= set(r) for r in results
    )
    assert [r["rank"] for r in results] == list(range(1, len(results) + 1))


@pytest.mark.parametrize(
    ("name", "variable"),
    [("brave", "SLEUTH_BRAVE_KEY"), ("tavily", "SLEUTH_TAVILY_KEY"), ("exa", "SLEUTH_EXA_KEY")],
)
def test_missing_key_is_exit_1_naming_the_variable(
    name: str, variable: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["search", "rust async runtime", f"--search={name}", "--json"], capsys)
    assert code == 1 and out == ""
    assert variable in err and "Traceback" not in err


HOSTILE = [
    "/secret",
    "http://[::1]/",
    "http://169.254.169.254/latest/meta-data/",
    "http://2130706433/",
    "http://0x7f.1/",
    "http://localhost/admin",
    "http://10.0.0.5/internal",
    "file:///etc/passwd",
]


def test_search_results_pointing_inward_are_never_requested(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    own = f"{testweb_env.base}/secret"
    urls = [own if u == "/secret" else u for u in HOSTILE]
    testweb_env.add_redirect("http://bounce.example.com/go", own)
    results = [
        {"url": u, "title": "Audit logs", "content": "audit logs kept 90 days", "engine": "x"}
        for u in [*urls, "http://bounce.example.com/go"]
    ]
    results.append(
        {
            "url": "http://docs.examplecloud.com/security/audit-logs/retention",
            "title": "Audit log retention",
            "content": "90 days",
            "engine": "x",
        }
    )
    testweb_env.script_search("audit", results)
    code, out, err = run(
        [
            "ask",
            "audit log retention",
            "--search=searxng",
            "--json",
            "--no-cache",
            "--verbose",
            "--max-sources=10",
        ],
        capsys,
    )
    assert code == 0, err
    assert "/secret" not in testweb_env.hits  # not directly, not through the proxy, not redirected
    assert not any("169.254" in h or "[::1]" in h or "10.0.0.5" in h for h in testweb_env.hits)
    data = json.loads(out)
    read = [s["url"] for s in data["sources"] if not s.get("snippet")]
    assert read == ["http://docs.examplecloud.com/security/audit-logs/retention"]
    assert all(s["url"] not in urls or s.get("snippet") is None for s in data["sources"])


def test_failing_search_recovers_through_the_fallback_and_says_so(
    replay_env: ReplayServer, capsys: pytest.CaptureFixture[str]
) -> None:
    replay_env.scenarios["searxng"] = "malformed"
    code, out, err = run(
        ["ask", "rust async runtime", "--search=searxng", "--search-fallback=wikipedia", "--json"],
        capsys,
    )
    assert code == 0, err
    assert "retrying through the fallback backend wikipedia" in err
    assert json.loads(out)["sources"]


def test_every_backend_failing_exits_3_naming_each_cause(
    replay_env: ReplayServer, capsys: pytest.CaptureFixture[str]
) -> None:
    replay_env.scenarios["searxng"] = "malformed"
    replay_env.scenarios["wikipedia"] = "ratelimited"
    code, out, err = run(
        ["ask", "rust async runtime", "--search=searxng", "--search-fallback=wikipedia"], capsys
    )
    assert code == 3 and out == ""
    last = err.strip().splitlines()[-2]  # the error, then the hint
    assert last.startswith("sleuth: search failed: searxng: returned non-JSON"), last
    assert "wikipedia" in last


FARM = "http://www.ehow.com/how_8237/use-python-asyncio.html"
SYNDICATED = "http://news.syndicator.example/tech/2023/async-io-python-complete-walkthrough"


def test_authority_prefer_puts_primary_ahead_of_a_content_farm(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = "http://docs.python.org/3/library/asyncio-eventloop.html"
    testweb_env.script_search(
        "event loop",
        [
            {
                "url": FARM,
                "title": "How to use asyncio",
                "content": "asyncio event loop",
                "engine": "x",
            },
            {"url": docs, "title": "Event Loop", "content": "asyncio event loop", "engine": "x"},
        ],
    )
    code, out, err = run(
        [
            "ask",
            "asyncio event loop",
            "--search=searxng",
            "--json",
            "--no-cache",
            "--concurrency=1",
            "--verbose",
        ],
        capsys,
    )
    assert code == 0, err
    fetched = [
        line.split("url=")[1].split(" ")[0].strip("'")
        for line in err.splitlines()
        if line.startswith(("fetch.done", "fetch.skipped"))
    ]
    assert fetched.index(docs) < fetched.index(FARM)
    tiers = {s["url"]: s["authority"] for s in json.loads(out)["sources"]}
    assert tiers.get(docs) == "primary" and tiers.get(FARM) == "low"
    code, out, err = run(
        [
            "ask",
            "asyncio event loop",
            "--search=searxng",
            "--json",
            "--no-cache",
            "--source-authority=strict",
        ],
        capsys,
    )
    assert FARM not in {s["url"] for s in json.loads(out)["sources"]}


def test_syndicated_copy_is_dropped_as_a_near_duplicate(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        [
            "ask",
            "async io python complete walkthrough",
            "--search=searxng",
            "--json",
            "--no-cache",
            "--verbose",
        ],
        capsys,
    )
    assert code == 0, err
    assert f"fetch.duplicate url='{SYNDICATED}'" in err
    urls = {s["url"] for s in json.loads(out)["sources"]}
    assert SYNDICATED not in urls and "http://realpython.com/async-io-python/" in urls
    code, out, err = run(
        [
            "ask",
            "async io python complete walkthrough",
            "--search=searxng",
            "--json",
            "--no-cache",
            "--no-dedupe",
        ],
        capsys,
    )
    assert SYNDICATED in {s["url"] for s in json.loads(out)["sources"]}


def test_doctor_reports_and_exits_1_when_search_is_broken(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["doctor", "--search=searxng", "--json"], capsys)
    assert code == 0, err
    checks = json.loads(out)["checks"]
    assert any(c["section"] == "search" and c["status"] == "ok" for c in checks)
    assert any(c["section"] == "llm" and c["status"] == "warn" for c in checks)
    testweb_env.search_mode = "error500"
    code, out, _ = run(["doctor", "--search=searxng", "--json"], capsys)
    assert code == 1 and json.loads(out)["ok"] is False


@pytest.mark.browser
def test_a_js_only_page_is_read_through_chromium(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("playwright")
    import shutil

    if not shutil.which("chromium"):
        pytest.skip("needs a system chromium (Debian package)")
    from tests.testweb.problems import SPA_TEXT, SPA_URL

    testweb_env.script_search(
        "dashboard",
        [
            {"url": SPA_URL, "title": "Research dashboard", "content": "dashboard", "engine": "x"},
        ],
    )
    code, out, err = run(
        ["ask", "research dashboard", "--search=searxng", "--json", "--no-cache", "--browser=auto"],
        capsys,
    )
    assert code == 0, err
    source = next(s for s in json.loads(out)["sources"] if s["url"] == SPA_URL)
    assert not source.get("snippet")
    assert SPA_TEXT.split(".")[0] in " ".join(p["text"] for p in source["passages"])
    code, out, err = run(
        [
            "ask",
            "research dashboard",
            "--search=searxng",
            "--json",
            "--no-cache",
            "--browser=never",
        ],
        capsys,
    )
    plain = [s for s in json.loads(out)["sources"] if s["url"] == SPA_URL]
    assert all(SPA_TEXT.split(".")[0] not in p["text"] for s in plain for p in s["passages"])
