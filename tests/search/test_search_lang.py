"""Search language (issue 29, item 4): each backend with a documented language or region
parameter sends it, taken from the run's `search_lang` — asserted on the request the loopback
replay server (or, for ddgs, the library boundary) received — and one without sends nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sleuth.errors import UsageError
from sleuth.langtag import parse_tag
from sleuth.ports import SearchQuery
from sleuth.registry import BackendSettings, registries
from sleuth.search import duckduckgo
from sleuth.search.spec import build_search
from sleuth.settings.values import coerce
from tests.cli.helpers import run
from tests.search.replay import ReplayServer


def preview(backend: str, lang: str | None, capsys: pytest.CaptureFixture[str]) -> list[Any]:
    args = ["search", "Energiewende Kosten", f"--search={backend}", "--json"]
    code, out, err = run([*args, f"--search-lang={lang}"] if lang else args, capsys)
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


def sent(replay: ReplayServer, backend: str) -> tuple[dict[str, str], Any]:
    """The query parameters and JSON body of the last request `backend` received."""
    got = [r for r in replay.requests if r.backend == backend]
    assert got, f"{backend} was not asked"
    return got[-1].params, got[-1].body


def test_searxng_sends_language(
    replay_env: ReplayServer, capsys: pytest.CaptureFixture[str]
) -> None:
    preview("searxng", "de-at", capsys)  # checked and written in canonical case
    assert sent(replay_env, "searxng")[0]["language"] == "de-AT"
    preview("searxng", None, capsys)
    assert "language" not in sent(replay_env, "searxng")[0]


@pytest.mark.parametrize(
    ("lang", "params"),
    [
        ("de-AT", {"search_lang": "de", "country": "AT"}),
        ("ja", {"search_lang": "jp"}),  # Brave's own code for Japanese
        ("zh-TW", {"search_lang": "zh-hant", "country": "TW"}),
        ("pt-BR", {"search_lang": "pt-br", "country": "BR"}),
        ("en-GB", {"search_lang": "en-gb", "country": "GB"}),
        ("sw-KE", {}),  # neither on Brave's lists: sending them would be refused
    ],
)
def test_brave_sends_search_lang_and_country(
    lang: str,
    params: dict[str, str],
    replay_env: ReplayServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    preview("brave", lang, capsys)
    got = sent(replay_env, "brave")[0]
    assert {k: got[k] for k in ("search_lang", "country") if k in got} == params


def test_exa_sends_the_region_as_user_location(
    replay_env: ReplayServer, capsys: pytest.CaptureFixture[str]
) -> None:
    preview("exa", "de-AT", capsys)
    assert sent(replay_env, "exa")[1]["userLocation"] == "at"
    preview("exa", "de", capsys)  # no region: Exa has no language parameter
    assert "userLocation" not in sent(replay_env, "exa")[1]


def test_firecrawl_sends_the_region_as_country_and_crw_the_language_as_lang(
    replay_env: ReplayServer, capsys: pytest.CaptureFixture[str]
) -> None:
    preview("firecrawl", "de-AT", capsys)
    assert sent(replay_env, "firecrawl")[1]["country"] == "AT"
    preview("firecrawl", "de", capsys)  # no region: Firecrawl's v2 search has no language field
    assert "country" not in sent(replay_env, "firecrawl")[1]
    preview("crw", "de-AT", capsys)
    assert sent(replay_env, "crw")[1]["lang"] == "de"
    preview("crw", None, capsys)
    assert "lang" not in sent(replay_env, "crw")[1]


def test_bocha_has_no_language_parameter_and_sends_none(
    replay_env: ReplayServer, capsys: pytest.CaptureFixture[str]
) -> None:
    preview("bocha", "zh-CN", capsys)
    params, body = sent(replay_env, "bocha")
    assert set(body) == {"query", "count", "summary", "freshness"} and not params


def test_tavily_has_no_language_parameter_and_sends_none(
    replay_env: ReplayServer, capsys: pytest.CaptureFixture[str]
) -> None:
    preview("tavily", "de-AT", capsys)
    params, body = sent(replay_env, "tavily")
    assert set(body) == {"query", "max_results", "search_depth", "topic"} and not params


def test_wikipedia_searches_the_languages_wiki(
    replay_env: ReplayServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLEUTH_WIKIPEDIA_ENDPOINT", f"{replay_env.url}/wikipedia/{{lang}}")
    results = preview("wikipedia", "de-AT", capsys)
    assert replay_env.requests[-1].path == "de"  # the API of de.wikipedia.org
    assert all(r["url"].startswith("https://de.wikipedia.org/wiki/") for r in results)
    preview("wikipedia:fr", "de-AT", capsys)  # the spec's own wiki wins
    assert replay_env.requests[-1].path == "fr"
    results = preview("wikipedia", None, capsys)
    assert replay_env.requests[-1].path == "en"
    assert all(r["url"].startswith("https://en.wikipedia.org/wiki/") for r in results)


def test_wikipedia_default_endpoint_is_the_languages_own() -> None:
    backend = build_search("wikipedia", BackendSettings())
    assert backend.api.format(lang="de") == "https://de.wikipedia.org/w/api.php"  # type: ignore[attr-defined]


class RecordingDDGS:
    """ddgs at its boundary: records each call's keyword arguments."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def text(self, query: str, **kwargs: Any) -> list[dict[str, Any]]:
        self.calls.append(kwargs)
        return [{"href": "https://example.de/a", "title": "A", "body": "b"}]

    def news(self, query: str, **kwargs: Any) -> list[dict[str, Any]]:
        self.calls.append(kwargs)
        return [{"url": "https://example.de/n", "title": "N", "body": "b", "date": "2024-01-01"}]


@pytest.mark.parametrize("name", ["duckduckgo", "news"])
@pytest.mark.parametrize(
    ("lang", "region"),
    [(None, "us-en"), ("de", "de-de"), ("de-AT", "at-de"), ("en-GB", "uk-en"), ("sw", "wt-wt")],
)
async def test_duckduckgo_sends_the_kl_region(name: str, lang: str | None, region: str) -> None:
    client = RecordingDDGS()
    settings = BackendSettings(env={"SLEUTH_DDG_DELAY_MS": "0"}, extra={"ddgs": client})
    backend = build_search(name, settings)
    assert await backend.search(SearchQuery("Energiewende", 3, language=lang))
    assert client.calls[-1]["region"] == region


@pytest.mark.parametrize(
    ("tag", "region"),
    [("ja", "jp-jp"), ("zh-Hant", "tw-tzh"), ("zh", "cn-zh"), ("pt-BR", "br-pt"),
     ("fr-CA", "ca-fr"), ("es-419", "es-es"), ("ko-KR", "kr-kr"), ("sv", "se-sv")],
)  # fmt: skip
def test_kl_regions_follow_duckduckgos_own_codes(tag: str, region: str) -> None:
    assert duckduckgo.region_for(tag) == region


@pytest.mark.parametrize(
    "name", ["arxiv", "github", "hackernews", "stackexchange", "pubmed", "openalex"]
)
def test_backends_without_a_language_parameter_send_none(
    name: str, replay_env: ReplayServer, capsys: pytest.CaptureFixture[str]
) -> None:
    preview(name, None, capsys)
    plain = [(r.path, r.params) for r in replay_env.requests]
    replay_env.requests.clear()
    preview(name, "de-AT", capsys)
    assert [(r.path, r.params) for r in replay_env.requests] == plain


@pytest.mark.parametrize(
    ("given", "canonical"),
    [("de", "de"), ("DE-at", "de-AT"), ("zh_hant_tw", "zh-Hant-TW"), ("es-419", "es-419")],
)
def test_codes_are_checked_and_canonical(given: str, canonical: str) -> None:
    assert coerce("search_lang", given) == canonical == str(parse_tag(given))


@pytest.mark.parametrize("bad", ["english", "xx", "e", "de-Germany", "de--AT", "", "🇩🇪"])
def test_bad_codes_are_refused_naming_the_setting(bad: str) -> None:
    with pytest.raises(UsageError, match=r"^search_lang .*(language code|ISO 639-1)") as caught:
        coerce("search_lang", bad)
    assert caught.value.setting == "search_lang"


def test_every_web_backend_is_covered_here() -> None:
    """A new web backend must say here what it does with a search language."""
    covered = {
        "searxng", "brave", "exa", "tavily", "wikipedia", "duckduckgo", "news", "arxiv",
        "github", "hackernews", "stackexchange", "pubmed", "openalex", "semanticscholar",
        "auto", "multi", "firecrawl", "crw", "bocha", "openai", "gemini",
    }  # fmt: skip
    web = {e.name for e in registries().search if not e.offline}
    assert web <= covered, web - covered
