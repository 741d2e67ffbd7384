"""The building blocks of the test web: what a served page is, and how an article becomes HTML.

Articles are wrapped in the boilerplate real sites carry (cookie banner, header nav, sidebar,
newsletter box, footer) so that main-text extraction is exercised, not bypassed.
"""

from __future__ import annotations

import html
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

HTML = "text/html; charset=utf-8"

# A streamed body: given the event that is set when the test ends (or the server stops), yields
# the body in pieces. Used for bodies too large, too slow or too costly to build up front.
Chunks = Callable[[threading.Event], Iterator[bytes]]


@dataclass(frozen=True, slots=True)
class Page:
    """One response the test web can give for a URL."""

    url: str
    body: bytes = b""
    content_type: str = HTML
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    delay_s: float = 0.0
    # A body too costly to build at import: made on first request, sent with Content-Length.
    lazy_body: Callable[[], bytes] | None = None
    stream: Chunks | None = None
    # Content-Length of a streamed body; None sends it with chunked transfer encoding.
    stream_length: int | None = None


@dataclass(frozen=True, slots=True)
class Doc:
    """The searchable view of a page: what the SearXNG endpoint ranks and snippets."""

    url: str
    title: str
    text: str
    published: str | None = None


@dataclass(frozen=True, slots=True)
class Fault:
    """A per-host failure: hang forever, answer late, or answer with an error status."""

    hang: bool = False
    delay_s: float = 0.0
    status: int | None = None


@dataclass(frozen=True, slots=True)
class Article:
    """A page's content and the look of the site it lives on.

    Paragraphs starting with "## " become headings and with "```" preformatted code.
    `date_style` says where the published date is put: "jsonld", "meta", "time" or "" (nowhere).
    """

    url: str
    title: str
    site: str
    paragraphs: tuple[str, ...]
    published: str | None = None
    date_style: str = ""
    author: str = ""
    cookie_banner: bool = True
    ads: bool = False


def normalize_url(url: str) -> str:
    """Canonical key of an absolute URL: lower-case host, no default port, '/' for empty path."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    default_port = {"http": 80, "https": 443}.get(scheme)
    netloc = host if parts.port in (None, default_port) else f"{host}:{parts.port}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def article_doc(article: Article) -> Doc:
    text = "\n".join(p.removeprefix("## ").removeprefix("```") for p in article.paragraphs)
    return Doc(article.url, article.title, text, article.published)


def article_page(article: Article) -> Page:
    return Page(article.url, render_article(article).encode("utf-8"))


def render_article(a: Article) -> str:
    title = html.escape(a.title)
    body = "\n".join(_block(p) for p in a.paragraphs)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} | {html.escape(a.site)}</title>
<meta name="description" content="{html.escape(_first_sentence(a))}">
{_date_head(a)}<link rel="stylesheet" href="/static/site.css">
</head>
<body>
{_COOKIE_BANNER if a.cookie_banner else ""}
{_header(a.site)}
{_ADS_TOP if a.ads else ""}
<main id="content"><article>
<h1>{title}</h1>
{_byline(a)}
{body}
</article></main>
{_SIDEBAR}
{_footer(a.site)}
</body></html>
"""


def _first_sentence(a: Article) -> str:
    first = next((p for p in a.paragraphs if not p.startswith(("## ", "```"))), "")
    return first.split(". ")[0][:160]


def _block(paragraph: str) -> str:
    if paragraph.startswith("## "):
        return f"<h2>{html.escape(paragraph[3:], quote=False)}</h2>"
    if paragraph.startswith("```"):
        return f"<pre><code>{html.escape(paragraph[3:])}</code></pre>"
    return f"<p>{html.escape(paragraph, quote=False)}</p>"


def _date_head(a: Article) -> str:
    if not a.published:
        return ""
    if a.date_style == "jsonld":
        data = {
            "@context": "https://schema.org",
            "@type": "Article",
            "headline": a.title,
            "datePublished": a.published,
            "author": {"@type": "Person", "name": a.author or a.site},
        }
        return f'<script type="application/ld+json">{json.dumps(data)}</script>\n'
    if a.date_style == "meta":
        return f'<meta property="article:published_time" content="{a.published}">\n'
    return ""


def _byline(a: Article) -> str:
    by = f"By {html.escape(a.author)}" if a.author else ""
    if a.published and a.date_style == "time":
        return (
            f'<p class="byline">{by} <time datetime="{a.published}">{a.published[:10]}</time></p>'
        )
    return f'<p class="byline">{by}</p>' if by else ""


def _header(site: str) -> str:
    name = html.escape(site)
    return f"""<header class="site-header"><a class="logo" href="/">{name}</a>
<nav aria-label="Main"><ul><li><a href="/">Home</a></li><li><a href="/topics">Topics</a></li>
<li><a href="/about">About us</a></li><li><a href="/contact">Contact</a></li>
<li><a href="/login">Sign in</a></li></ul></nav>
<form role="search" action="/search"><input name="q" placeholder="Search {name}"></form>
</header>"""


def _footer(site: str) -> str:
    return f"""<footer class="site-footer"><p>Copyright 2024 {html.escape(site)}.
All rights reserved.</p><nav><a href="/privacy">Privacy policy</a> · <a href="/terms">Terms of
use</a> · <a href="/cookies">Cookie settings</a> · <a href="/sitemap.xml">Sitemap</a></nav>
<p>Follow us on social media for the latest updates.</p></footer>"""


_COOKIE_BANNER = """<div class="cookie-banner" id="cookie-consent" role="dialog">
<p>We use cookies and similar technologies to improve your browsing experience, analyse site
traffic and show personalised advertising. By clicking Accept all you consent to our use of
cookies.</p><button>Accept all</button><button>Reject non-essential</button>
<a href="/cookies">Manage preferences</a></div>"""

_ADS_TOP = """<div class="ad-slot" aria-label="Advertisement"><p>Advertisement</p>
<a href="/sponsored">Top 10 gadgets every developer needs this year - shop now!</a></div>"""

_SIDEBAR = """<aside class="sidebar"><h2>Popular right now</h2><ul>
<li><a href="/popular/1">Ten habits of productive teams</a></li>
<li><a href="/popular/2">What's new this week</a></li>
<li><a href="/popular/3">Our most-read guides of the year</a></li></ul>
<div class="newsletter"><h2>Subscribe to our newsletter</h2><p>Get the best articles delivered to
your inbox every week. No spam, unsubscribe at any time.</p><input type="email"
placeholder="you@example.com"><button>Subscribe</button></div></aside>"""
