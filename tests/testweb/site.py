"""The default site of the test web: every page it serves, the searchable subset, and the
host faults that hold unless a test overrides them.

Three topics with real answers (see topic_*.py), two PDFs, and the problem hosts (problems.py).
Import the URL constants from here so tests name pages, not strings.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.testweb import bombs, pdfs, problems, topic_asyncio, topic_audit, topic_v8
from tests.testweb.pages import Doc, Fault, Page, article_doc, article_page, normalize_url
from tests.testweb.problems import (  # re-exported: tests import every URL from site
    BIG_URL,
    BINARY_URL,
    DRIP_URL,
    ERROR_URL,
    GZIP_BOMB_URL,
    HANG_URL,
    SECRET_PATH,
    SPA_TEXT,
    SPA_URL,
    UNDECODABLE_URL,
)
from tests.testweb.topic_asyncio import (
    CONTENT_FARM,
    DOCS_ASYNCIO,
    DOCS_TASKS,
    INJECTION,
    OLD_BLOG,
    REALPYTHON,
    SLOW_GUIDE,
    STACKOVERFLOW,
    SYNDICATED,
)
from tests.testweb.topic_audit import CLOUD_DOCS, CLOUD_FORUM, CLOUD_PRICING, NIST_GUIDANCE
from tests.testweb.topic_v8 import GOOGLE_WIKI, SPIDERMONKEY_WIKI, V8_ABOUT

PDF_URL = pdfs.SP800_92_URL
OCTET_PDF_URL = pdfs.WHITEPAPER_URL
SLOW_URL = SLOW_GUIDE.url
EVIL_HOST = "evil.example"

__all__ = [
    "BIG_URL",
    "BINARY_URL",
    "CLOUD_DOCS",
    "CLOUD_FORUM",
    "CLOUD_PRICING",
    "CONTENT_FARM",
    "DOCS_ASYNCIO",
    "DOCS_TASKS",
    "DRIP_URL",
    "ERROR_URL",
    "EVIL_HOST",
    "GOOGLE_WIKI",
    "GZIP_BOMB_URL",
    "HANG_URL",
    "INJECTION",
    "NIST_GUIDANCE",
    "OCTET_PDF_URL",
    "OLD_BLOG",
    "PDF_URL",
    "REALPYTHON",
    "SECRET_PATH",
    "SLOW_URL",
    "SPA_TEXT",
    "SPA_URL",
    "SPIDERMONKEY_WIKI",
    "STACKOVERFLOW",
    "SYNDICATED",
    "UNDECODABLE_URL",
    "V8_ABOUT",
    "Site",
    "default_site",
]


@dataclass(frozen=True, slots=True)
class Site:
    """Pages by normalized URL (or "/path" for the server's own paths), searchable docs, and
    per-host faults."""

    pages: dict[str, Page] = field(default_factory=dict)
    docs: tuple[Doc, ...] = ()
    faults: dict[str, Fault] = field(default_factory=dict)


def default_site() -> Site:
    articles = (
        *topic_asyncio.SEARCHABLE,
        *topic_audit.SEARCHABLE,
        *topic_v8.SEARCHABLE,
    )
    pages = [article_page(a) for a in (*articles, SLOW_GUIDE)]
    pages += _pdf_pages() + problems.problem_pages() + bombs.bomb_pages()
    docs = tuple(article_doc(a) for a in articles) + _pdf_docs()
    return Site(
        pages={_key(p.url): p for p in pages},
        docs=docs,
        faults=dict(problems.DEFAULT_FAULTS),
    )


def _key(url: str) -> str:
    return url if url.startswith("/") else normalize_url(url)


def _pdf_pages() -> list[Page]:
    return [
        Page(PDF_URL, content_type="application/pdf", lazy_body=pdfs.sp800_92_pdf),
        Page(OCTET_PDF_URL, content_type="application/octet-stream", lazy_body=pdfs.whitepaper_pdf),
    ]


def _pdf_docs() -> tuple[Doc, ...]:
    return (
        Doc(PDF_URL, pdfs.SP800_92_TITLE, pdfs.pdf_text(pdfs.SP800_92_PAGES), "2006-09-13"),
        Doc(OCTET_PDF_URL, pdfs.WHITEPAPER_TITLE, pdfs.pdf_text(pdfs.WHITEPAPER_PAGES)),
    )
