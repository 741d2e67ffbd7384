"""A downloaded body to a Page: decode, route by kind, extract. This is what runs inside the
extraction sandbox's workers, so it imports the parsers and nothing of the HTTP stack."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import urlsplit

from ..errors import FetchError
from ..types import Page
from .body import Body, Kind, decode_text, kind_from_headers, settle_kind
from .extract import Extracted, extract_html
from .pdf import extract_pdf

# Fewer characters than this after extraction is an empty shell (a consent wall, a JS app).
MIN_TEXT_CHARS = 40


def to_page(body: Body, pdf_max_pages: int) -> Page:
    """Extract a downloaded body into a Page; runs inside a sandbox worker."""
    kind = settle_kind(kind_from_headers(body.mime, urlsplit(body.final_url).path), body)
    extracted = _extract(kind, body, pdf_max_pages)
    if len(extracted.text.strip()) < MIN_TEXT_CHARS:
        raise FetchError("no text", body.url, cause="no-text")
    return Page(
        url=body.url,
        title=extracted.title or body.final_url,
        text=extracted.text,
        fetched_at=datetime.now(UTC).isoformat(timespec="seconds"),
        content_type="application/pdf" if kind == "pdf" else (body.mime or "text/html"),
        final_url=body.final_url if body.final_url != body.url else None,
        published=extracted.published,
        scripted=extracted.scripted,
        images=extracted.images,
    )


def _extract(kind: Kind, body: Body, pdf_max_pages: int) -> Extracted:
    if kind == "pdf":
        if body.truncated:
            raise FetchError("too large", body.url, cause="too-large")
        try:
            return extract_pdf(body.data, max_pages=pdf_max_pages)
        except FetchError as exc:
            raise FetchError(exc.reason, body.url, cause=exc.cause) from exc
    text = decode_text(body)
    if kind == "text":
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        return Extracted(title=first[:200], text=text.strip(), published=None)
    return extract_html(text, body.final_url)
