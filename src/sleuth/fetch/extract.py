"""HTML to main text, title and published date.

trafilatura finds the main text (boilerplate removed) and the title. Published dates come from
what the publisher declared, most explicit first: JSON-LD `datePublished`, then publication meta
tags, then a `<time datetime>`; only then trafilatura's own guess (which also reads URLs and
visible text). A page where trafilatura finds no main text still yields its visible body text,
so short or unusual pages are not lost.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import lxml.html
from lxml import etree

from ..types import PageImage
from .media import page_images

MetaKey = tuple[str, str]  # (attribute, lowercased value) of a <meta> tag naming a date


@dataclass(frozen=True, slots=True)
class Extracted:
    title: str
    text: str
    published: str | None  # ISO date (YYYY-MM-DD or full ISO)
    scripted: bool = False  # the HTML runs scripts: little text may mean a JavaScript app
    images: tuple[PageImage, ...] = ()  # images with alt text or a caption (media.py)


PUBLISHED_META: tuple[MetaKey, ...] = (
    ("property", "article:published_time"),
    ("property", "og:published_time"),
    ("itemprop", "datepublished"),
    ("name", "citation_publication_date"),
    ("name", "citation_date"),
    ("name", "dc.date.issued"),
    ("name", "dcterms.issued"),
    ("name", "dc.date"),
    ("name", "dcterms.created"),
    ("name", "pubdate"),
    ("name", "publishdate"),
    ("name", "publish-date"),
    ("name", "date"),
    ("name", "sailthru.date"),
    ("name", "parsely-pub-date"),
)
_INVISIBLE = ("script", "style", "noscript", "template", "svg", "head")
_BLOCKS = frozenset(
    {"p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "table"}
    | {"section", "article", "header", "footer", "blockquote", "pre", "dd", "dt", "dl"}
    | {"figcaption", "main", "aside", "nav", "form", "td", "th"}
)
# No extensive search: it turns "© 2024" in a footer into "2024-01-01". Markup and URL only.
_DATE_PARAMS = {"original_date": True, "extensive_search": False}
_LOOSE_DATE = re.compile(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})")
# trafilatura costs 0.15-0.3 ms an element (fast mode, one core): a page of 550,000 tiny
# paragraphs kept it busy for 100 s. Past this many elements the visible text is used instead,
# which is linear and takes well under a second.
MAX_MAIN_TEXT_ELEMENTS = 20_000


def extract_html(html: str, url: str) -> Extracted:
    tree = _parse(html)
    doc = _trafilatura(html, url) if _elements(tree) <= MAX_MAIN_TEXT_ELEMENTS else None
    title = _clean_space(getattr(doc, "title", None) or "") or _title_of(tree)
    text = (getattr(doc, "text", None) or "").strip() or _visible_text(tree)
    published = declared_date(tree) if tree is not None else None
    if published is None:
        published = normalize_date(getattr(doc, "date", None) or "")
    return Extracted(
        title=title,
        text=text,
        published=published,
        scripted=_runs_scripts(tree),
        images=page_images(tree, url),
    )


def _elements(tree: Any) -> int:
    if tree is None:
        return 0
    count = 0
    for _ in tree.iter():
        count += 1
        if count > MAX_MAIN_TEXT_ELEMENTS:
            break
    return count


def _runs_scripts(tree: Any) -> bool:
    """Scripts other than JSON-LD data blocks: the page may render its text in the browser."""
    if tree is None:
        return False
    return bool(tree.xpath("//script[not(@type='application/ld+json')]"))


def declared_date(tree: Any) -> str | None:
    """The publication date the page itself declares, or None."""
    for finder in (_jsonld_date, _meta_date, _time_date):
        found = finder(tree)
        if found:
            return found
    return None


_PARTIAL_DATE = re.compile(r"(?:1[5-9]|20)\d\d(?:-(?:0[1-9]|1[0-2]))?")


def normalize_date(value: str) -> str | None:
    """ISO-normalize a date: "2021-03-04T10:00Z" -> "2021-03-04T10:00:00+00:00", "2020/5/1" ->
    "2020-05-01", "2007" and "2007-05" kept as they are (publishers often declare only a year);
    None when it is not a date."""
    text = value.strip()
    if not text:
        return None
    if _PARTIAL_DATE.fullmatch(text):
        return text  # a year ("2007") or a month ("2007-05"): ISO 8601 at the precision given
    if len(text) == 10 and text[4] == "-":
        try:
            return date.fromisoformat(text).isoformat()
        except ValueError:
            return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).isoformat()
    except ValueError:
        return _loose_date(text)


def _loose_date(text: str) -> str | None:
    match = _LOOSE_DATE.search(text)
    if not match:
        return None
    try:
        return date(*(int(g) for g in match.groups())).isoformat()
    except ValueError:
        return None


def _trafilatura(html: str, url: str) -> Any:
    try:
        import trafilatura  # the heaviest import of a run: loaded when first needed

        return trafilatura.bare_extraction(
            html,
            url=url,
            with_metadata=True,
            include_comments=False,
            include_tables=True,
            date_extraction_params=_DATE_PARAMS,
            # Skip the readability/justext comparison: twice the pages per second (150 -> 306
            # on offline-web pages, one core) with the same bench answers (CHANGELOG).
            fast=True,
        )
    except (ValueError, TypeError, RecursionError, etree.LxmlError):
        # trafilatura raises on some malformed documents; the body-text fallback still works.
        return None


def _parse(html: str) -> Any:
    if not html.strip():
        return None
    try:
        return lxml.html.document_fromstring(html)
    except (etree.ParserError, ValueError):
        return None


def _jsonld_date(tree: Any) -> str | None:
    for script in tree.xpath('//script[@type="application/ld+json"]'):
        try:
            data = json.loads(script.text_content() or "")
        except ValueError:
            continue
        for node in _walk_jsonld(data):
            found = normalize_date(str(node.get("datePublished") or ""))
            if found:
                return found
    return None


def _walk_jsonld(data: Any) -> Iterator[dict[str, Any]]:
    if isinstance(data, list):
        for item in data:
            yield from _walk_jsonld(item)
    elif isinstance(data, dict):
        yield data
        yield from _walk_jsonld(data.get("@graph", []))
        yield from _walk_jsonld(data.get("mainEntity", []))


def _meta_date(tree: Any) -> str | None:
    metas: dict[MetaKey, str] = {}
    for meta in tree.iter("meta"):
        content = meta.get("content") or ""
        for attr in ("property", "name", "itemprop"):
            key = (attr, (meta.get(attr) or "").lower())
            if key[1] and content:
                metas.setdefault(key, content)
    for key in PUBLISHED_META:
        found = normalize_date(metas.get(key, ""))
        if found:
            return found
    return None


def _time_date(tree: Any) -> str | None:
    # A <time> marked as the publication date beats the first <time> on the page.
    marked = tree.xpath('//time[@datetime][@itemprop="datePublished" or @pubdate]')
    for element in [*marked, *tree.xpath("//time[@datetime]")]:
        found = normalize_date(element.get("datetime") or "")
        if found:
            return found
    return None


def _title_of(tree: Any) -> str:
    if tree is None:
        return ""
    for xpath in ("//title", '//meta[@property="og:title"]/@content', "//h1"):
        for hit in tree.xpath(xpath):
            text = _clean_space(hit if isinstance(hit, str) else hit.text_content())
            if text:
                return text
    return ""


def _visible_text(tree: Any) -> str:
    if tree is None:
        return ""
    body = tree.find("body")
    root = body if body is not None else tree
    lines: list[str] = []
    _collect(root, lines)
    paragraphs = (_clean_space(p) for p in "".join(lines).split("\n"))
    return "\n".join(p for p in paragraphs if p)


def _collect(root: Any, out: list[str]) -> None:
    # iterwalk, not recursion: hostile pages nest thousands of elements deep.
    skipping: Any = None
    for event, element in etree.iterwalk(root, events=("start", "end")):
        tag = element.tag if isinstance(element.tag, str) else ""
        if skipping is not None:
            if event == "end" and element is skipping:
                skipping = None
                out.append(element.tail or "")
            continue
        if event == "start" and (tag in _INVISIBLE or not tag):
            skipping = element
            continue
        brk = "\n" if tag in _BLOCKS else ""
        if event == "start":
            out.append(brk + (element.text or ""))
        else:
            out.append(brk + ((element.tail or "") if element is not root else ""))


def _clean_space(text: str) -> str:
    return " ".join(text.split())


def warm_up() -> None:
    """Import the extraction stack ahead of the first page (a run calls this in a worker
    thread while its first search is on the network)."""
    import trafilatura  # noqa: F401
