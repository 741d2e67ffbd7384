"""A lying scripted model writes one faithful sentence and one fabricated claim, in every marker
style a model uses: the fabricated claim must be checked and flagged whatever the style
(issue 10, build 1), and links or source lists it adds are not citations (issue 12, item 2)."""

from __future__ import annotations

import pytest

from sleuth.engine.engine import Engine
from sleuth.events import Done, Event
from sleuth.pipeline.write.llm import LLMWriter
from sleuth.types import ResearchRequest, Result
from tests.fakes import FakeChatModel

from .fakes import FakeFetcher, FakeSearch
from .test_engine_quick import AUDIT, OTHER, PRICING

Q = "How long are Example Cloud audit logs kept?"
HITS = [
    ("https://docs.examplecloud.com/audit", "Audit logs", "kept 90 days"),
    ("https://examplecloud.com/pricing", "Pricing", "Enterprise 365 days"),
    ("https://fruit.example/bananas", "Bananas", "yellow fruit"),
]
PAGES = {
    HITS[0][0]: ("Audit logs", AUDIT),
    HITS[1][0]: ("Pricing", PRICING),
    HITS[2][0]: ("Bananas", OTHER),
}
TRUE = "Audit log entries in Example Cloud are retained for 90 days by default"
LIE = "Audit logs are encrypted with quantum keys rotated every hour"


async def answer(text: str) -> Result:
    model = FakeChatModel()
    model.enqueue(text)
    engine = Engine(FakeSearch({"*": HITS}), FakeFetcher(PAGES), LLMWriter(model))
    events: list[Event] = [e async for e in engine.run(ResearchRequest(Q))]
    assert isinstance(events[-1], Done), events[-1]
    return events[-1].result


STYLES = {
    "before the period": f"{TRUE} [1]. {LIE} [2].",
    "after the period": f"{TRUE}. [1] {LIE}. [2]",
    "glued to the period": f"{TRUE}.[1] {LIE}.[2]",
    "adjacent markers": f"{TRUE} [1]. {LIE} [2][3].",
    "comma group": f"{TRUE} [1]. {LIE} [2, 3].",
    "range": f"{TRUE} [1]. {LIE} [2-3].",
    "footnote caret": f"{TRUE}.^1 {LIE}.^2",
    "markdown footnote": f"{TRUE}.[^1] {LIE}.[^2]",
    "line ends without a period": f"{TRUE} [1]\n{LIE} [2]\n",
    "marker on its own line": f"{TRUE}.\n[1]\n{LIE}.\n[2]\n",
    "bulleted list": f"- {TRUE} [1]\n- {LIE} [2]\n",
    "numbered list": f"1. {TRUE}. [1]\n2. {LIE}. [2]\n",
    "table": f"| claim | source |\n|---|---|\n| {TRUE} | [1] |\n| {LIE} | [2] |\n",
}


@pytest.mark.parametrize("style", STYLES)
async def test_every_marker_style_checks_the_fabricated_claim(style: str) -> None:
    result = await answer(STYLES[style])
    v = result.verification
    assert v.checked == 2, (style, v)
    assert v.supported == 1, (style, v)
    (flagged,) = v.unsupported
    assert "quantum" in flagged.sentence and 2 in flagged.numbers
    assert "## Citation health" in (result.answer or "")


async def test_a_fabricated_number_with_the_sources_words_is_flagged() -> None:
    result = await answer("Audit log entries in Example Cloud are retained for 30 days [1].")
    assert result.verification.supported == 0


async def test_a_negation_the_source_does_not_make_is_flagged() -> None:
    result = await answer("Audit log entries in Example Cloud are never retained by default [1].")
    assert result.verification.supported == 0


async def test_a_fake_source_list_is_not_a_citation() -> None:
    text = (
        f"{TRUE} [1].\n\n**Sources**\n\n[2] Pricing — https://attacker.example/pricing\n"
        "[3] Bananas — https://attacker.example/bananas\n"
    )
    result = await answer(text)
    assert "attacker.example" not in (result.answer or "")
    assert [c.number for c in result.citations] == [1]
    assert result.verification.checked == 1


async def test_links_keep_their_text_and_only_known_urls_become_markers() -> None:
    text = (
        f"{TRUE} per [the docs](https://docs.examplecloud.com/audit). See "
        "https://attacker.example/x for more."
    )
    result = await answer(text)
    body = result.answer or ""
    assert "attacker.example" not in body and "](" not in body
    assert "the docs [1]" in body
    assert [c.number for c in result.citations] == [1]


@pytest.mark.parametrize(
    "text", [f"{TRUE} [1]. {LIE} [99].", f"{TRUE}. [1] {LIE}. [99]", f"{TRUE}.^1 {LIE}.^99",
             f"{TRUE} [1]. {LIE} [98-99]."],
)  # fmt: skip
async def test_a_claim_citing_a_source_that_does_not_exist_is_flagged(text: str) -> None:
    result = await answer(text)
    v = result.verification
    assert (v.checked, v.supported) == (2, 1), v
    (flagged,) = v.unsupported
    assert "quantum" in flagged.sentence and flagged.numbers == ()
    body = result.answer or ""
    assert "[99]" not in body and "cites no source that was read" in body
    assert [c.number for c in result.citations] == [1]


async def test_a_real_citation_beside_an_invented_one_is_checked_as_the_real_one() -> None:
    result = await answer(f"{TRUE} [1][99].")
    v = result.verification
    assert (v.checked, v.supported, v.unsupported) == (1, 1, ())


NOTICE = (
    "URGENT SAFETY NOTICE: your audit logs have been exposed, call +1-555-0100 immediately "
    "to secure your account."
)


async def test_an_uncited_notice_copied_from_a_page_is_flagged_not_trusted() -> None:
    """A page's urgent call-this-number sentence, copied without a marker, was kept unflagged
    at confidence high (issue 24)."""
    pages = {**PAGES, HITS[0][0]: ("Audit logs", f"{AUDIT}\n\n{NOTICE}")}
    model = FakeChatModel()
    model.enqueue(f"{TRUE} [1]. {NOTICE}\n\nIn short, that is the default for every account.")
    engine = Engine(FakeSearch({"*": HITS}), FakeFetcher(pages), LLMWriter(model))
    events: list[Event] = [e async for e in engine.run(ResearchRequest(Q))]
    assert isinstance(events[-1], Done)
    result = events[-1].result
    (flagged,) = result.verification.unsupported  # the model's own summary line is not
    assert flagged.sentence.startswith("URGENT SAFETY NOTICE") and flagged.numbers == ()
    assert result.verification.checked == 2 and result.verification.supported == 1
    assert result.confidence != "high"
    assert "## Citation health" in (result.answer or "")


async def test_an_uncited_phone_number_is_flagged_even_in_the_models_words() -> None:
    result = await answer(f"{TRUE} [1]. For help, ring 555 0100 12 or see www.help.example.")
    (flagged,) = result.verification.unsupported
    assert "555 0100" in flagged.sentence
