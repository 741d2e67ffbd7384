"""Images beside the claims they illustrate, chosen in code from the pages Sleuth read.

For each supported cited sentence of the answer, the candidates are the images of the pages it
cites (`Source.images`, collected while those pages were extracted — an image URL in the model's
text is never one). An image fits a sentence when its alt text and caption share enough
content words with the sentence and the passage of that source it cites (`support.context_of`),
the sentence's own words counting most;
the fitting images are downloaded through the fetcher's network guard (the best-fitting
`MAX_DOWNLOADS`), and one refused, unreachable, too large or not of an image type shown is
dropped. Then, best fits first, each sentence gets at most one image and each image
illustrates one sentence, at most `MAX_FIGURES` in all.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import FetchError
from ..fetch.domains import DomainPolicy
from ..ports import ImageFetcher
from ..types import FetchedImage, Figure, PageImage, Source, Verification
from .cite import HEALTH_HEADING, claims
from .support import context_of, stems_of

MAX_FIGURES = 4  # images in one result
MAX_DOWNLOADS = 8  # images downloaded for one result, so a refused one can be replaced
MIN_SHARED = 2  # content words an image's text shares with a claim and its passage, at least
MIN_SHARE = 0.3  # and this share of the image's own content words
DOWNLOAD_DEADLINE_S = 8.0  # all the downloads of one result
ANY_DOMAIN = DomainPolicy()


@dataclass(frozen=True, slots=True)
class Candidate:
    number: int
    image: PageImage
    sentence: str
    fit: float


def candidates(answer: str, sources: Sequence[Source], check: Verification) -> list[Candidate]:
    """Every image of a cited page that fits a supported sentence citing it, best fits
    first."""
    by_number = {s.number: s for s in sources}
    unsupported = {u.sentence for u in check.unsupported}
    found: list[Candidate] = []
    for claim in claims(_without_health(answer)):
        if claim.sentence not in unsupported:
            cited = [by_number[n] for n in claim.numbers if n in by_number]
            found += [c for source in cited for c in _fits(claim.sentence, source)]
    return sorted(found, key=lambda c: c.fit, reverse=True)


def _without_health(answer: str) -> str:
    """The answer without the check's own `## Citation health` list (its sentences are the
    unsupported ones, clipped)."""
    return answer.split(f"\n{HEALTH_HEADING}\n", 1)[0]


def _fits(sentence: str, source: Source) -> list[Candidate]:
    """The images of `source` that fit `sentence`: words shared with the sentence count
    fully, words shared only with the passage around it (`context_of`) half."""
    if not source.images or source.snippet:
        return []
    said = stems_of(sentence)
    around = stems_of(context_of(sentence, source)) - said
    out = []
    for image in source.images:
        own = stems_of(image.words)
        direct, indirect = len(own & said), len(own & around)
        shared = direct + indirect
        if own and shared >= MIN_SHARED and shared / len(own) >= MIN_SHARE:
            fit = direct + indirect / 2 + shared / len(own)
            out.append(Candidate(source.number, image, sentence, fit))
    return out


def assign(found: Sequence[Candidate], usable: set[str]) -> list[Candidate]:
    """At most one image a sentence and one sentence an image, best fits first, only images
    in `usable` (downloaded and checked), at most `MAX_FIGURES`."""
    chosen: list[Candidate] = []
    sentences: set[str] = set()
    urls: set[str] = set()
    for candidate in found:
        url = candidate.image.url
        if url in usable and url not in urls and candidate.sentence not in sentences:
            chosen.append(candidate)
            sentences.add(candidate.sentence)
            urls.add(url)
    return chosen[:MAX_FIGURES]


async def figures(
    answer: str,
    sources: Sequence[Source],
    check: Verification,
    fetcher: ImageFetcher,
    within_s: float = DOWNLOAD_DEADLINE_S,
    policy: DomainPolicy = ANY_DOMAIN,
) -> tuple[Figure, ...]:
    """The answer's images, downloaded and checked within `within_s` (none from a domain the
    run's lists refuse); in the order of their sentences."""
    found = candidates(answer, sources, check)
    urls = list(dict.fromkeys(c.image.url for c in found))[:MAX_DOWNLOADS]
    if not urls or within_s <= 0:
        return ()
    images = await _download_all(urls, fetcher, policy, within_s)
    order = {c.sentence: i for i, c in enumerate(claims(answer))}
    chosen = sorted(assign(found, set(images)), key=lambda c: order.get(c.sentence, len(order)))
    return tuple(_figure(c, images[c.image.url]) for c in chosen)


async def _download_all(
    urls: list[str], fetcher: ImageFetcher, policy: DomainPolicy, within_s: float
) -> dict[str, FetchedImage]:
    """The images that downloaded and passed their checks within `within_s`, by URL."""
    tasks = [asyncio.ensure_future(_download(url, fetcher, policy)) for url in urls]
    try:
        await asyncio.wait(tasks, timeout=within_s)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    done = [t.result() for t in tasks if not t.cancelled() and t.exception() is None]
    return {image.url: image for image in done if image is not None}


async def _download(url: str, fetcher: ImageFetcher, policy: DomainPolicy) -> FetchedImage | None:
    try:
        policy.check(url)
        image = await fetcher.fetch_image(url)
    except FetchError:
        return None
    return FetchedImage(url, image.type, image.data)  # keyed by the URL the page named


def _figure(candidate: Candidate, image: FetchedImage) -> Figure:
    found = candidate.image
    return Figure(
        candidate.number, found.url, found.alt, found.caption, candidate.sentence, image.type,
        image.data,
    )  # fmt: skip
