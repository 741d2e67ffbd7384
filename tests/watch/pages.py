"""A watched question answered by one page of the test web, which a test can change."""

from __future__ import annotations

from tests.testweb.server import TestWeb

URL = "http://harbour.example.org/quellmoor-lighthouse"
QUESTION = "When was the Quellmoor lighthouse built?"
RUN = ["--search=searxng", "--search-fallback=none", "--browser=never"]
FIRST = (
    "The Quellmoor lighthouse was built in 1821 on the northern cape. The Quellmoor lighthouse "
    "is 31 metres tall and its lamp was electrified a century after it was built."
)
CHANGED = (
    "The Quellmoor lighthouse was built in 1821 on the northern cape. In 2025 the Quellmoor "
    "lighthouse was decommissioned and its lamp was moved to the harbour museum."
)


def serve(web: TestWeb, text: str) -> None:
    """The page says `text` (until the next call); search finds it."""
    title = "The Quellmoor lighthouse"
    body = (
        f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>"
        f"<p>{text}</p></article></body></html>"
    )
    web.add_page(URL, body)
    web.script_search("quellmoor", [{"url": URL, "title": title, "content": text[:120]}])
