"""Issue 29, item 2 through the faces: a run with Firecrawl, crw, Bocha, OpenAI's web search or
Gemini's grounding selected (the library's
`research(search=...)` and `sleuth ask --search=NAME`) reads the pages their recorded answers
name on the test web, cites them, and never requests a result that points inward."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from sleuth import research
from tests.cli.helpers import run
from tests.llm.fake_servers import FakeLLMServer
from tests.search.replay import MODEL_BACKENDS, MODEL_KEYS, ReplayServer
from tests.server.research_llm import research_llm
from tests.testweb.server import TestWeb

NEW = ("firecrawl", "crw", "bocha")
Q = "How long does Example Cloud keep audit logs?"
DOCS = "http://docs.examplecloud.com/security/audit-logs/retention"
INWARD = ("10.0.0.5", "169.254.169.254")


@pytest.fixture
def providers(testweb_env: TestWeb, monkeypatch: pytest.MonkeyPatch) -> Iterator[ReplayServer]:
    """The replay server answering every backend with results on the test web (and two that
    point inward), next to the test web's proxy."""
    with ReplayServer(scenario="testweb") as replay:
        for name, value in replay.env().items():
            monkeypatch.setenv(name, value)
        yield replay


def never_inward(web: TestWeb) -> None:
    assert not any(any(host in hit for host in INWARD) for hit in web.hits), web.hits


@pytest.mark.parametrize("name", NEW)
def test_cli_ask_reads_and_cites_the_pages_the_backend_found(
    name: str, providers: ReplayServer, testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["ask", Q, f"--search={name}", "--search-fallback=none", "--json", "--no-cache"]
    code, out, err = run(args, capsys)
    assert code == 0, err
    data = json.loads(out)
    read = {s["url"] for s in data["sources"] if not s.get("snippet")}
    assert DOCS in read  # fetched and read by Sleuth, not taken from the search answer
    assert DOCS in {c["url"] for c in data["citations"]}
    assert not any(host in s["url"] for s in data["sources"] for host in INWARD)
    assert [r.backend for r in providers.requests] == [name]
    never_inward(testweb_env)


@pytest.mark.parametrize("name", NEW)
async def test_library_research_with_the_backend(
    name: str, providers: ReplayServer, testweb_env: TestWeb
) -> None:
    result = await research(Q, search=name, search_fallback="none", no_cache=True)
    assert DOCS in {c.url for c in result.citations}
    assert not any(host in s.url for s in result.sources for host in INWARD)
    assert [r.backend for r in providers.requests] == [name]
    never_inward(testweb_env)


@pytest.mark.parametrize(("name", "variable"), [("firecrawl", "SLEUTH_FIRECRAWL_KEY"),
                                                ("bocha", "SLEUTH_BOCHA_KEY"),
                                                ("crw", "SLEUTH_CRW_URL")])  # fmt: skip
def test_missing_setting_is_exit_1_naming_the_variable(
    name: str, variable: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["search", "rust async runtime", f"--search={name}", "--json"], capsys)
    assert code == 1 and out == ""
    assert variable in err and "Traceback" not in err


@pytest.mark.parametrize("name", NEW)
def test_doctor_probes_the_backend(
    name: str, providers: ReplayServer, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run(["doctor", f"--search={name}", "--json"], capsys)
    checks = json.loads(out)["checks"]
    search = [c for c in checks if c["section"] == "search"]
    assert search and search[0]["name"] == name and search[0]["status"] == "ok", search
    providers.scenario = "unauthorized"
    code, out, _ = run(["doctor", f"--search={name}", "--json"], capsys)
    search = [c for c in json.loads(out)["checks"] if c["section"] == "search"]
    assert code == 1 and search[0]["status"] == "fail" and "HTTP 401" in search[0]["detail"]


# Search through a model: the key that selects the search also configures a model for the run,
# so the run's model here is the fake OpenAI-compatible server (SLEUTH_BASE_URL wins).
GOOGLE = "http://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ"


@pytest.fixture
def model_env(
    providers: ReplayServer, testweb_env: TestWeb, monkeypatch: pytest.MonkeyPatch
) -> Iterator[FakeLLMServer]:
    llm = FakeLLMServer("openai", responder=research_llm(critic_rounds=0)).start()
    env = {**MODEL_KEYS, "SLEUTH_BASE_URL": llm.url, "SLEUTH_API_KEY": "k", "SLEUTH_MODEL": "m"}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    # Google's grounding links, as the test web's redirects (the real ones are https).
    testweb_env.add_redirect(f"{GOOGLE}docs", DOCS)
    testweb_env.add_redirect(f"{GOOGLE}internal", "http://10.0.0.5/internal")
    testweb_env.add_redirect(
        f"{GOOGLE}community",
        "http://community.examplecloud.com/t/how-long-are-audit-logs-kept/1432",
    )
    try:
        yield llm
    finally:
        llm.stop()


@pytest.mark.parametrize("name", MODEL_BACKENDS)
def test_cli_ask_with_model_search_reads_the_cited_pages_not_the_model(
    name: str,
    model_env: FakeLLMServer,
    providers: ReplayServer,
    testweb_env: TestWeb,
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["ask", Q, f"--search={name}", "--search-fallback=none", "--json", "--no-cache"]
    code, out, err = run(args, capsys)
    assert code == 0, err
    data = json.loads(out)
    assert DOCS in {s["url"] for s in data["sources"] if not s.get("snippet")}
    assert DOCS in {c["url"] for c in data["citations"]}
    assert "90 days" in data["answer"]
    # The model said 400 days; that text is in no source and in no answer.
    assert "400 days" not in out
    assert not any(host in s["url"] for s in data["sources"] for host in INWARD)
    assert {r.backend for r in providers.requests} == {name}
    never_inward(testweb_env)


@pytest.mark.parametrize("name", MODEL_BACKENDS)
async def test_library_research_with_model_search(
    name: str, model_env: FakeLLMServer, providers: ReplayServer, testweb_env: TestWeb
) -> None:
    result = await research(Q, search=name, search_fallback="none", no_cache=True)
    assert DOCS in {c.url for c in result.citations}
    assert {r.backend for r in providers.requests} == {name}
    never_inward(testweb_env)


def test_firecrawl_scrape_stands_in_for_a_page_that_refuses_sleuth(
    providers: ReplayServer, testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    """The docs host answers Sleuth's client with 403: Firecrawl's scrape of it is read instead
    (and cited); the inward result's scraped text is never used, its URL never requested."""
    providers.scenario = "scrapedweb"
    testweb_env.add_fault("docs.examplecloud.com", status=403)
    args = ["ask", Q, "--search=firecrawl:scrape", "--search-fallback=none", "--json"]
    code, out, err = run([*args, "--no-cache", "--verbose"], capsys)
    assert code == 0, err
    assert f"fetch.skipped url='{DOCS}'" in err  # Sleuth tried it itself first
    data = json.loads(out)
    source = next(s for s in data["sources"] if s["url"] == DOCS)
    assert not source.get("snippet")  # read, from the scraped text
    assert any("copy scraped by the search service" in p["text"] for p in source["passages"])
    assert DOCS in {c["url"] for c in data["citations"]}
    assert "400 days" not in out  # the internal page's scraped text
    never_inward(testweb_env)
    providers.scenario = "scrapedweb"
    testweb_env.clear_fault("docs.examplecloud.com")
    code, out, err = run([*args[:-1], "--json", "--no-cache"], capsys)
    source = next(s for s in json.loads(out)["sources"] if s["url"] == DOCS)
    texts = " ".join(p["text"] for p in source["passages"])
    assert "retained for 90 days" in texts and "scraped by the search service" not in texts
