"""Reports without a model (issue 25): sections by aspect of the question, never one per page
named after the page, and no section filled with sentences that do not bear on it."""

from __future__ import annotations

from sleuth.engine.engine import Engine
from sleuth.events import Done
from sleuth.pipeline.write.extractive import ExtractiveWriter
from sleuth.types import ResearchRequest

from .fakes import FakeFetcher, FakeSearch

FILMING = (
    "https://films.example/harbour-line",
    "Harbour Line (television series)",
    "Harbour Line is a drama series about a ferry crossing between two island towns. "
    "The series was filmed in Tofino, British Columbia, over four months in 2021. "
    "Most of the harbour scenes were filmed at the old cannery wharf near the town. "
    "The production hired local crews from Vancouver Island for the shoot.",
)
UNRELATED = (
    "https://wiki.example/lantern-wars",
    "Lantern Wars",
    "The Lantern Wars were a series of disputes between rival guilds in the 1700s. "
    "Guild members filmed nothing, of course, since cameras had not been invented. "
    "The disputes ended when the town council banned open flames in the market square. "
    "Historians still argue about how many lanterns were broken during the riots.",
)
QUESTION = "Where was the series Harbour Line filmed?"


async def _report() -> str:
    pages = {url: (title, text) for url, title, text in (FILMING, UNRELATED)}
    search = FakeSearch({"*": [(u, t, t) for u, t, _ in (FILMING, UNRELATED)]})
    engine = Engine(search, FakeFetcher(pages), ExtractiveWriter())
    request = ResearchRequest(QUESTION, output="report")
    events = [e async for e in engine.run(request)]
    done = events[-1]
    assert isinstance(done, Done)
    return done.result.answer or ""


async def test_a_report_has_no_section_named_after_a_page() -> None:
    report = await _report()
    headings = [line[3:].strip() for line in report.splitlines() if line.startswith("## ")]
    assert headings[0] == "Overview"
    assert "Lantern Wars" not in headings
    assert all(h not in {FILMING[1], UNRELATED[1]} for h in headings)
    assert "Tofino, British Columbia" in report.split("\n## ", 1)[0]  # the overview answers


async def test_sentences_that_do_not_bear_on_the_question_are_left_out() -> None:
    report = await _report()
    assert "lanterns were broken" not in report
    assert "banned open flames" not in report
