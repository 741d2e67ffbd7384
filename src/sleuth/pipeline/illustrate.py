"""Images beside the claims they illustrate, chosen in code from the pages Sleuth read.

For each supported cited sentence of the answer, the candidates are the images of the pages it
cites (`Source.images`, collected while those pages were extracted — an image URL in the model's
text is never one). An image fits a sentence when its alt text and caption share enough
content words with the sentence and the passage of that source it cites (`support.context_of`);
the best fit wins, each sentence gets at most one image and each image illustrates one sentence.
The chosen images are then downloaded through the fetcher's network guard, at most
`MAX_FIGURES` kept: one refused, unreachable, too large, or not of an image type shown is
dropped, and the next candidate takes its place.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import FetchError
from ..fetch.domains import DomainPolicy
from ..ports import ImageFetcher
from ..types import Figure, PageImage, Source, Verification
from .cite import claims
from .support import context_of, stems_of

MAX_FIGURES = 4  # images in one result
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
    """The best-fitting image for each supported cited sentence, best fits first; each image
    once."""
    by_number = {s.number: s for s in sources}
    unsupported = {u.sentence for u in check.unsupported}
    found: list[Candidate] = []
    for claim in claims(answer):
        if claim.sentence in unsupported:
            continue
        cited = [by_number[n] for n in claim.numbers if n in by_number]
        best = max((c for s in cited for c in _fits(claim.sentence, s)), key=_by_fit, default=None)
        if best is not None:
            found.append(best)
    found.sort(key=_by_fit, reverse=True)
    return _once_each(found)


def _by_fit(candidate: Candidate) -> float:
    return candidate.fit


def _fits(sentence: str, source: Source) -> list[Candidate]:
    if not source.images or source.snippet:
        return []
    cited = stems_of(f"{sentence} {context_of(sentence, source)}")
    out = []
    for image in source.images:
        own = stems_of(image.words)
        shared = len(own & cited)
        if own and shared >= MIN_SHARED and shared / len(own) >= MIN_SHARE:
            out.append(Candidate(source.number, image, sentence, shared + shared / len(own)))
    return out


def _once_each(found: list[Candidate]) -> list[Candidate]:
    used: set[str] = set()
    kept = []
    for candidate in found:
        if candidate.image.url not in used:
            used.add(candidate.image.url)
            kept.append(candidate)
    return kept


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
    chosen = candidates(answer, sources, check)[: MAX_FIGURES * 2]
    if not chosen or within_s <= 0:
        return ()
    tasks = [asyncio.ensure_future(_download(c, fetcher, policy)) for c in chosen]
    try:
        await asyncio.wait(tasks, timeout=within_s)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    done = [t.result() for t in tasks if not t.cancelled() and t.exception() is None]
    kept = [f for f in done if f is not None][:MAX_FIGURES]
    order = {c.sentence: i for i, c in enumerate(claims(answer))}
    return tuple(sorted(kept, key=lambda f: order.get(f.sentence, len(order))))


async def _download(
    candidate: Candidate, fetcher: ImageFetcher, policy: DomainPolicy
) -> Figure | None:
    try:
        policy.check(candidate.image.url)
        image = await fetcher.fetch_image(candidate.image.url)
    except FetchError:
        return None
    return Figure(
        candidate.number,
        candidate.image.url,
        candidate.image.alt,
        candidate.image.caption,
        candidate.sentence,
        image.type,
        image.data,
    )
