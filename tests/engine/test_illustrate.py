"""Choosing a report's images (`pipeline/illustrate.py`) with a recording image fetcher: only
images of the cited pages, fitted to supported sentences, one per sentence and per image; a
refused download is replaced by the next fit; URLs in the answer's text are never asked for."""

from __future__ import annotations

from sleuth.errors import BlockedURLError, FetchError
from sleuth.fetch.domains import DomainPolicy
from sleuth.pipeline.cite import health_footer
from sleuth.pipeline.illustrate import MAX_FIGURES, candidates, figures
from sleuth.types import (
    FetchedImage,
    PageImage,
    Passage,
    Source,
    UnsupportedSentence,
    Verification,
)

TEXT = (
    "The Harbor Lane Bridge opened in 1932 after four years of construction. "
    "It is a steel arch bridge over the river Mere."
)
OPENING = PageImage("http://a.example/opening.png", "Crowds at the bridge opening in 1932")
ARCH = PageImage("http://a.example/arch.png", "", "The steel arch of the bridge over the Mere")
PRIVATE = PageImage("http://10.0.0.9/arch.png", "Steel arch bridge over the river Mere")
UNRELATED = PageImage("http://a.example/mayor.png", "Portrait of the town mayor in her office")
ANSWER = (
    "The bridge opened in 1932 [1]. It is a steel arch bridge over the river Mere [1]. "
    "See ![arch](http://evil.example/x.png) and http://evil.example/y.png [2]."
)


def source(number: int, *images: PageImage, snippet: bool = False) -> Source:
    passage = Passage(TEXT, 1.0, 0)
    return Source(number, f"http://a.example/{number}", "Bridge", 1.0, (passage,),
                  text=TEXT, images=images, snippet=snippet)  # fmt: skip


class Images:
    """An image fetcher that refuses private addresses and records every URL asked for."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def fetch_image(self, url: str) -> FetchedImage:
        self.asked.append(url)
        if "10.0.0" in url:
            raise BlockedURLError("private or local address", url)
        return FetchedImage(url, "image/png", b"\x89PNG\r\n\x1a\n" + url.encode())


def test_each_supported_sentence_gets_its_best_fitting_image() -> None:
    found = candidates(ANSWER, [source(1, UNRELATED, ARCH, OPENING)], Verification(2, 2))
    best = {}
    for c in found:
        best.setdefault(c.sentence, c.image)
    assert best == {
        "The bridge opened in 1932.": OPENING,
        "It is a steel arch bridge over the river Mere.": ARCH,
    }
    assert UNRELATED not in [c.image for c in found]


def test_unsupported_sentences_and_snippets_get_no_image() -> None:
    check = Verification(2, 1, (UnsupportedSentence("The bridge opened in 1932.", (1,)),))
    found = candidates(ANSWER, [source(1, ARCH, OPENING)], check)
    assert {c.sentence for c in found} == {"It is a steel arch bridge over the river Mere."}
    assert found[0].image == ARCH
    assert candidates(ANSWER, [source(1, ARCH, snippet=True)], Verification(2, 2)) == []


async def test_a_refused_image_is_replaced_and_text_urls_are_never_asked_for() -> None:
    fetcher = Images()
    sources = [source(1, PRIVATE, ARCH, OPENING), source(2)]
    shown = await figures(ANSWER, sources, Verification(3, 3), fetcher)
    assert [(f.url, f.sentence) for f in shown] == [
        (OPENING.url, "The bridge opened in 1932."),
        (ARCH.url, "It is a steel arch bridge over the river Mere."),
    ]
    assert PRIVATE.url in fetcher.asked  # tried, refused by the guard, replaced
    assert not any("evil.example" in url for url in fetcher.asked)
    assert shown[0].data.startswith(b"\x89PNG") and shown[0].type == "image/png"


async def test_denied_domains_and_failed_downloads_show_nothing() -> None:
    fetcher = Images()
    policy = DomainPolicy.from_lists(deny=["a.example"])
    sources = [source(1, ARCH, OPENING)]
    assert await figures(ANSWER, sources, Verification(2, 2), fetcher, policy=policy) == ()
    assert fetcher.asked == []  # a denied domain is not contacted for its images either

    class Failing:
        async def fetch_image(self, url: str) -> FetchedImage:
            raise FetchError("image too large", url, cause="too-large")

    assert await figures(ANSWER, sources, Verification(2, 2), Failing()) == ()


async def test_at_most_a_few_images_in_one_result() -> None:
    many = [PageImage(f"http://a.example/{i}.png", f"Bridge opened in 1932, view {i}")
            for i in range(10)]  # fmt: skip
    sentences = " ".join(f"The bridge opened in 1932, view {i} [1]." for i in range(10))
    shown = await figures(sentences, [source(1, *many)], Verification(10, 10), Images())
    assert len(shown) == MAX_FIGURES


def test_the_citation_health_list_is_no_claim_to_illustrate() -> None:
    """The check's own list clips long unsupported sentences: no image goes after it."""
    long = "The bridge opened in 1932, " + "a day of long speeches and music, " * 8 + "at noon."
    check = Verification(2, 1, (UnsupportedSentence(long, (1,)),))
    text = f"{long[:-1]} [1]. It is a steel arch bridge over the river Mere [1]."
    answer = f"{text}\n{health_footer(check)}"
    assert "## Citation health" in answer and long not in answer.split("## Citation health")[1]
    found = candidates(answer, [source(1, ARCH, OPENING)], check)
    assert {c.sentence for c in found} == {"It is a steel arch bridge over the river Mere."}
