"""Yes/no questions get the verdict their evidence states (issue 25 item 5), on the loopback
test web through the CLI with no LLM: a stated finding answers "Yes.", a negated one "No.", a
hedged one "Unclear"; a page stating only what its study set out to do, or a page about
something else, gives no verdict at all."""

from __future__ import annotations

import pytest

from tests.cli.helpers import run
from tests.testweb.server import TestWeb

VERDICTS = ("Yes.", "No.", "Unclear")


def _abstract(title: str, *sections: tuple[str, str]) -> str:
    body = "".join(f"<p>{label}: {text}</p>" for label, text in sections)
    return (
        f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>{body}"
        "</article></body></html>"
    )


def _study(drug: str, finding: str) -> str:
    return _abstract(
        f"{drug.capitalize()} and knee pain in runners",
        ("OBJECTIVE", f"To determine whether daily {drug} reduces knee pain in runners."),
        (
            "METHODS",
            f"We randomised 240 runners with knee pain to daily {drug} or to placebo "
            "and measured their pain after twelve weeks.",
        ),
        ("RESULTS", finding),
    )


PAGES = {
    "stated": (
        "http://trials.example.org/velorin-knee",
        _study(
            "velorin",
            "Daily velorin significantly reduced knee pain in runners compared "
            "with placebo (p < 0.01).",
        ),
    ),
    "negated": (
        "http://trials.example.org/brumaxol-knee",
        _study(
            "brumaxol",
            "Daily brumaxol did not reduce knee pain in runners; pain scores "
            "were alike in both arms.",
        ),
    ),
    "hedged": (
        "http://trials.example.org/cendrite-knee",
        _study(
            "cendrite",
            "Daily cendrite may reduce knee pain in runners, but the trial was "
            "too small to be sure.",
        ),
    ),
    "unstated": (
        "http://trials.example.org/dorvane-knee",
        _abstract(
            "Dorvane and knee pain in runners",
            ("OBJECTIVE", "To determine whether daily dorvane reduces knee pain in runners."),
            ("METHODS", "Runners with knee pain were randomised to daily dorvane or placebo."),
        ),
    ),
    "unrelated": (
        "http://bridges.example.org/orlen-viaduct",
        _abstract(
            "The Orlen viaduct",
            ("HISTORY", "The Orlen viaduct carries the railway across the Weir valley."),
            ("WORKS", "Its twelve stone arches were repaired after the floods of 1952."),
        ),
    ),
}
QUESTIONS = {
    "stated": ("Does daily velorin reduce knee pain in runners?", "velorin"),
    "negated": ("Does daily brumaxol reduce knee pain in runners?", "brumaxol"),
    "hedged": ("Does daily cendrite reduce knee pain in runners?", "cendrite"),
    "unstated": ("Does daily dorvane reduce knee pain in runners?", "dorvane"),
    "unrelated": ("Does daily zolvane reduce knee pain in runners?", "zolvane"),
}


def lead(web: TestWeb, capsys: pytest.CaptureFixture[str], case: str) -> str:
    url, html = PAGES[case]
    web.add_page(url, html)
    question, topic = QUESTIONS[case]
    web.script_search(topic, [{"url": url, "title": case, "content": "A study abstract."}])
    code, out, err = run(["ask", question, "--search=searxng", "--no-sessions"], capsys)
    assert code == 0, err
    return out.split("\n\n", 2)[1]  # the lead, after the "# question" heading


def test_a_stated_finding_answers_yes_citing_its_sentence(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    text = lead(testweb_env, capsys, "stated")
    assert text.startswith("Yes. ")
    assert "significantly reduced knee pain" in text.split("\n")[0]
    assert "[1]" in text.split("\n")[0]


def test_a_negated_finding_answers_no(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    text = lead(testweb_env, capsys, "negated")
    assert text.startswith("No. ")
    assert "did not reduce knee pain" in text.split("\n")[0]


def test_a_hedged_finding_answers_unclear(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    text = lead(testweb_env, capsys, "hedged")
    assert text.startswith("Unclear: the sources hedge.")
    assert "may reduce knee pain" in text.split("\n")[0]


def test_a_page_about_something_else_gives_no_verdict(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    text = lead(testweb_env, capsys, "unrelated")
    assert not text.startswith(VERDICTS)


def test_a_page_stating_only_its_aim_and_methods_gives_no_verdict(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    text = lead(testweb_env, capsys, "unstated")
    assert not text.startswith(VERDICTS)
