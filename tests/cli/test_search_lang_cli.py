"""`--search-lang` through the real entry point (issue 29, item 4): a run on the test web sends
the language to the search service and still reads and cites a page in another language; a bad
code is refused, from a flag, a variable or the config file, naming the setting."""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.cli.helpers import run
from tests.testweb.server import TestWeb

Q = "When did the Elbphilharmonie concert hall in Hamburg open?"
EN = "http://news.example.org/music/elbphilharmonie-opening"
DE = "http://www.hamburg-kultur.example.de/elbphilharmonie/eroeffnung"
PAGE = """<!doctype html><html lang="{lang}"><head><title>{title}</title></head><body><article>
<h1>{title}</h1><p>{text}</p></article></body></html>"""


def add_pages(web: TestWeb) -> None:
    english = (
        "The Elbphilharmonie concert hall in Hamburg opened on 11 January 2017 with a gala "
        "concert by the NDR Elbphilharmonie Orchestra. The concert hall in the HafenCity "
        "district took almost ten years to build and cost 866 million euros."
    )
    german = (
        "Die Elbphilharmonie in Hamburg wurde am 11. Januar 2017 mit einem Festkonzert "
        "eröffnet. Das Konzerthaus in der HafenCity kostete 866 Millionen Euro."
    )
    web.add_page(EN, PAGE.format(lang="en", title="Elbphilharmonie opens", text=english))
    web.add_page(DE, PAGE.format(lang="de", title="Eröffnung der Elbphilharmonie", text=german))
    results = [
        {"url": DE, "title": "Eröffnung der Elbphilharmonie", "content": german[:80]},
        {"url": EN, "title": "Elbphilharmonie opens", "content": english[:80]},
    ]
    web.script_search("elbphilharmonie", [{**r, "engine": "x"} for r in results])


def searched_languages(web: TestWeb) -> list[str | None]:
    hits = [h for h in web.hits if h.startswith("/search")]
    return [parse_qs(urlsplit(h).query).get("language", [None])[0] for h in hits]


ASK = ["ask", Q, "--search=searxng", "--search-fallback=none", "--browser=never", "--json"]


def test_a_run_sends_the_search_language_and_still_cites_another_language(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    add_pages(testweb_env)
    code, out, err = run([*ASK, "--no-cache", "--search-lang=de"], capsys)
    assert code == 0, err
    assert searched_languages(testweb_env) == ["de"]
    result = json.loads(out)
    read = {s["url"] for s in result["sources"] if not s.get("snippet")}
    assert {EN, DE} <= read
    assert EN in {c["url"] for c in result["citations"]}  # the English page is cited


def test_the_variable_and_the_config_file_set_it_too(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    add_pages(testweb_env)
    monkeypatch.setenv("SLEUTH_SEARCH_LANG", "pt-br")
    code, _, err = run(["search", "Elbphilharmonie", "--search=searxng", "--json"], capsys)
    assert code == 0, err
    monkeypatch.delenv("SLEUTH_SEARCH_LANG")
    (home() / "config.toml").write_text('search_lang = "fr-CA"\n', encoding="utf-8")
    code, _, err = run(["search", "Elbphilharmonie", "--search=searxng", "--json"], capsys)
    assert code == 0, err
    assert searched_languages(testweb_env) == ["pt-BR", "fr-CA"]


def home() -> Path:
    """This test's SLEUTH_HOME (conftest gives each test its own)."""
    path = Path(os.environ["SLEUTH_HOME"])
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.mark.parametrize("command", [["ask", Q], ["search", "Elbphilharmonie"]])
def test_a_bad_code_on_the_command_line_is_refused_before_any_search(
    command: list[str], testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run([*command, "--search=searxng", "--search-lang=german"], capsys)
    assert code == 1 and out == ""  # a usage error is exit 1 here, as every bad flag
    assert "--search-lang" in err and "'german' is not a language code" in err
    assert "Traceback" not in err and not testweb_env.hits


@pytest.mark.parametrize("where", ["variable", "config"])
def test_a_bad_code_in_the_environment_or_config_is_refused_naming_it(
    where: str,
    testweb_env: TestWeb,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if where == "variable":
        monkeypatch.setenv("SLEUTH_SEARCH_LANG", "xx")
    else:
        (home() / "config.toml").write_text('search_lang = "xx"\n', encoding="utf-8")
    code, out, err = run(["ask", Q, "--search=searxng"], capsys)
    assert code == 1 and out == ""
    assert "'xx' is not an ISO 639-1 language code" in err and "Traceback" not in err
    assert not testweb_env.hits
