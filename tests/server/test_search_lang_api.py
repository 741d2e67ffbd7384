"""Search language over the wire (issue 29, item 4): the Research API's `search_lang` and the
web-app dialect's `language` reach the search service and the planner, pages in another
language are still cited, and a bad code is a 400 naming the field."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx

from sleuth.server.config import ServerConfig
from sleuth.server.webapp.request import WebAppConfig, map_request
from tests.llm.fake_servers import FakeLLMServer
from tests.server.harness import TESTWEB_DEFAULTS, Served, serving
from tests.server.research_llm import prompt_of, research_llm
from tests.server.sse import frames
from tests.testweb.server import TestWeb

Q = "How long does Example Cloud keep audit logs by default?"
DEEP_Q = "How long does Example Cloud keep audit logs, and how can they be exported?"


def languages(web: TestWeb) -> list[str | None]:
    hits = [h for h in web.hits if h.startswith("/search")]
    return [parse_qs(urlsplit(h).query).get("language", [None])[0] for h in hits]


@pytest.fixture
def served(testweb_env: TestWeb) -> Iterator[Served]:
    with serving() as s:
        yield s


def post(served: Served, path: str, body: dict[str, Any]) -> httpx.Response:
    headers = {"X-API-Key": served.key("acme")}
    return httpx.post(f"{served.api}/orgs/acme/{path}", json=body, headers=headers, timeout=60)


@pytest.mark.parametrize("path", ["research", "search"])
@pytest.mark.parametrize("bad", ["german", "xx", "de_Deutschland"])
def test_a_bad_code_is_a_400_naming_the_field(
    served: Served, testweb_env: TestWeb, path: str, bad: str
) -> None:
    got = post(served, path, {"query": Q, "search_lang": bad})
    assert got.status_code == 400, got.text
    body = got.json()
    assert body["code"] == "INVALID_REQUEST" and body["field"] == "search_lang"
    assert body["error"].startswith("search_lang") and "language code" in body["error"]
    assert testweb_env.searches == []  # refused before anything was searched


def test_research_sends_the_language_and_cites_a_page_in_another(
    served: Served, testweb_env: TestWeb
) -> None:
    got = post(served, "research", {"query": Q, "search_lang": "de-at", "no_cache": True})
    assert got.status_code == 200, got.text
    assert languages(testweb_env) == ["de-AT"]
    assert any("examplecloud.com" in c["url"] for c in got.json()["citations"])  # English pages
    found = post(served, "search", {"query": Q, "search_lang": "fr"})
    assert found.status_code == 200 and languages(testweb_env)[-1] == "fr"


def test_the_web_app_language_is_the_search_language_unless_it_is_no_code() -> None:
    mapped = map_request(WebAppConfig(query=Q, language="de-DE"), {})
    assert mapped.values["language"] == "de-DE" and mapped.values["search_lang"] == "de-DE"
    named = map_request(WebAppConfig(query=Q, language="Deutsch"), {})
    assert named.values["language"] == "Deutsch" and "search_lang" not in named.values
    assert "search_lang" not in map_request(WebAppConfig(query=Q), {}).values


def test_a_web_app_run_plans_and_searches_in_its_language(testweb_env: TestWeb) -> None:
    llm = FakeLLMServer("openai", responder=research_llm(critic_rounds=0)).start()
    try:
        defaults = {**TESTWEB_DEFAULTS, "base_url": llm.url, "api_key": "k", "model": "m"}
        with serving(ServerConfig(), defaults=defaults) as served:
            body = {"query": DEEP_Q, "searchProvider": "searxng", "language": "de-DE"}
            headers = {"X-API-Key": served.key("acme")}
            url = f"{served.base}/api/sse"
            with httpx.stream("POST", url, json=body, headers=headers, timeout=120) as r:
                events = [f.event for f in frames(r.iter_lines())]
        assert "error" not in events and events[-1] == "progress", events
    finally:
        llm.stop()
    plans = [prompt_of(r) for r in llm.received if "You plan web searches" in prompt_of(r)]
    assert plans and all("BCP 47 code de-DE," in p for p in plans)
    assert testweb_env.searches and set(languages(testweb_env)) == {"de-DE"}


def test_the_ui_settings_page_saves_a_checked_search_language() -> None:
    pytest.importorskip("jinja2", reason="the web UI needs sleuth[server]")
    with (
        serving(ServerConfig(open_access=True), defaults=TESTWEB_DEFAULTS) as served,
        httpx.Client(base_url=served.base) as client,
    ):
        in_use = in_use_of(client.get("/settings").text)
        assert "Any language (no preference)" in in_use
        refused = client.post("/settings", data={"search_lang": "german"})
        assert refused.status_code == 400 and "is not a language code" in refused.text
        assert client.post("/settings", data={"search_lang": "pt-br"}).status_code == 303
        page = client.get("/settings").text
        assert 'name="search_lang" type="text" value="pt-BR"' in page
        in_use = in_use_of(page)
        assert "<code>pt-BR</code>" in in_use and in_use.count("saved here") == 1


def in_use_of(page: str) -> str:
    return page.split('id="in-use-h"', 1)[1].split("</section>", 1)[0]
