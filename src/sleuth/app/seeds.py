"""Saved sources as pre-read search results, to continue or rewrite a past run."""

from __future__ import annotations

from collections.abc import Iterable

from ..types import Page, SearchResult, Source


def seed_results(sources: Iterable[Source]) -> tuple[SearchResult, ...]:
    """Read sources become pre-read results (never fetched again); snippet-only sources stay
    plain results, so a later run may still read them."""
    out = []
    for rank, source in enumerate(sources, start=1):
        page = None
        if not source.snippet and source.text:
            page = Page(
                url=source.url,
                title=source.title,
                text=source.text,
                fetched_at=source.fetched_at or "",
                published=source.published,
                images=source.images,
            )
        snippet = source.passages[0].text if source.passages else source.text[:300]
        out.append(
            SearchResult(source.url, source.title, snippet, "session", rank, source.published, page)
        )
    return tuple(out)
