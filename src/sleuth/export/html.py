"""A saved session as one self-contained HTML file: inline CSS, no scripts, no remote assets.

The answer's markdown is rendered by markdown-it-py with raw HTML off (a page that smuggled
`<script>` into an answer comes out as visible text) and markdown images off (an image would be
a remote asset). `[n]` markers become superscript links to the numbered source list. A run's
images (`Result.images`) are embedded as `data:` URIs of the bytes checked when the run
downloaded them, each after the block holding the sentence it illustrates (`figures.py`).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Sequence
from html import escape

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ..store.records import SessionRecord
from ..text.display import counted
from ..types import Figure, Source
from .figures import PLACEHOLDER, placed, placeholder
from .style import CSS

_MARKER = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
_SOURCE_ID = re.compile(r"src-\d+")
_SAFE_SCHEMES = ("http://", "https://", "file://")
# Ids the page itself uses, so a heading called "Sources" cannot collide with them.
_RESERVED_IDS = frozenset({"sources", "contents", "answer"})
TOC_MIN_HEADINGS = 3


def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False}).enable("table").disable("image")


def _slug(text: str, taken: set[str]) -> str:
    base = re.sub(r"[^\w]+", "-", text.lower()).strip("-_") or "section"
    slug, n = base, 1
    while slug in taken or _SOURCE_ID.fullmatch(slug):
        n += 1
        slug = f"{base}-{n}"
    taken.add(slug)
    return slug


def _plain(inline: Token) -> str:
    text = "".join(c.content for c in inline.children or () if c.type in ("text", "code_inline"))
    return " ".join(_MARKER.sub("", text).split())


def _cite_html(group: str, numbers: set[int]) -> str:
    parts = [n.strip() for n in group.split(",")]
    if not all(int(n) in numbers for n in parts):
        return escape(f"[{group}]")
    return "".join(f'<sup class="cite"><a href="#src-{n}">{n}</a></sup>' for n in parts)


def _link_markers(inline: Token, numbers: set[int]) -> None:
    """Split text children so each known `[n]` becomes a superscript link."""
    children: list[Token] = []
    for child in inline.children or ():
        if child.type != "text" or not _MARKER.search(child.content):
            children.append(child)
            continue
        pos = 0
        for match in _MARKER.finditer(child.content):
            children.append(_token("text", child.content[pos : match.start()]))
            children.append(_token("html_inline", _cite_html(match.group(1), numbers)))
            pos = match.end()
        children.append(_token("text", child.content[pos:]))
    inline.children = children


def _token(kind: str, content: str) -> Token:
    token = Token(kind, "", 0)
    token.content = content
    return token


def figure_html(figure: Figure) -> str:
    """An image as a `<figure>`: its checked bytes inline, its alt text, its caption and the
    source it is from; one whose bytes are not kept is left out."""
    if not figure.data or not figure.type.startswith("image/"):
        return ""
    src = f"data:{figure.type};base64,{base64.b64encode(figure.data).decode('ascii')}"
    words = escape(figure.caption or figure.alt)
    cite = f'<sup class="cite"><a href="#src-{figure.number}">{figure.number}</a></sup>'
    return (
        f'<figure class="illustration"><img src="{escape(src)}" alt="{escape(figure.alt)}" '
        f'loading="lazy"><figcaption>{words}{cite}</figcaption></figure>\n'
    )


def render_answer(
    markdown: str, numbers: set[int], figures: Sequence[Figure] = ()
) -> tuple[str, list[tuple[int, str, str]]]:
    """The answer as HTML with `figures` after their sentences' blocks, and its headings as
    (level, id, text) for a table of contents."""
    md = _markdown()
    shown = [f for f in figures if figure_html(f)]
    tokens = md.parse(placed(markdown, shown, placeholder) if shown else markdown)
    headings: list[tuple[int, str, str]] = []
    taken = set(_RESERVED_IDS)
    for i, token in enumerate(tokens):
        if token.type == "inline":
            if tokens[i - 1].type == "heading_open":
                text = _plain(token)
                slug = _slug(text, taken)
                tokens[i - 1].attrSet("id", slug)
                headings.append((int(tokens[i - 1].tag[1]), slug, text))
            _link_markers(token, numbers)
    html = md.renderer.render(tokens, md.options, {})
    html = PLACEHOLDER.sub(lambda m: figure_html(shown[int(m.group(1))]), html)
    return html.replace("\ue002", "").replace("\ue003", ""), headings


def _toc(headings: list[tuple[int, str, str]]) -> str:
    if len(headings) < TOC_MIN_HEADINGS:
        return ""
    top = min(level for level, _, _ in headings)
    items = "".join(
        f'<li class="toc-{level - top}"><a href="#{slug}">{escape(text)}</a></li>'
        for level, slug, text in headings
    )
    return f'<nav id="contents" class="toc"><h2>Contents</h2><ol>{items}</ol></nav>'


def _badge(tier: str) -> str:
    return f'<span class="badge badge-{escape(tier)}">{escape(tier)}</span>'


def _source_item(source: Source, quote: str | None) -> str:
    """One numbered source: link, authority, dates, and the quote the answer cites it for, or
    "not cited" for a source the writer was given but did not cite."""
    title = escape(source.title or source.url)
    url = escape(source.url)
    link = f'<a href="{url}">{title}</a>' if source.url.startswith(_SAFE_SCHEMES) else title
    dates = [escape(source.location)] if source.location else []
    dates += [f"fetched {escape(source.fetched_at[:10])}"] if source.fetched_at else []
    if source.published:
        dates.append(f"published {escape(source.published[:10])}")
    if source.snippet:
        dates.append("search snippet only")
    if quote is None:
        cited = '<div class="uncited">not cited</div>'
    else:
        cited = f'<blockquote class="quote">{escape(quote)}</blockquote>' if quote else ""
    kind = "cited" if quote is not None else "uncited"
    return (
        f'<li id="src-{source.number}" value="{source.number}" class="{kind}">{link} '
        f'{_badge(source.authority)}<div class="url">{url}</div>'
        f'<div class="dates">{" · ".join(dates)}</div>{cited}</li>'
    )


def _meta(record: SessionRecord) -> str:
    result = record.result
    check = result.verification
    parts = [
        escape(record.created_at[:10]),
        escape(record.depth),
        escape(record.model),
        f"confidence {escape(result.confidence)}",
        counted(len(result.sources), "source"),
    ]
    if check.enabled and check.checked:
        parts.append(f"citations checked: {check.supported}/{check.checked} pass")
    trust = result.source_trust.label
    parts.append(
        f'source trust <span class="badge badge-trust-{escape(trust)}">{escape(trust)}</span>'
    )
    return (
        f'<p class="meta">{" · ".join(parts)}</p><p class="meta id">session {escape(record.id)}</p>'
    )


def _body(record: SessionRecord) -> tuple[str, str]:
    result = record.result
    if result.data is not None and not result.answer:
        data = escape(json.dumps(result.data, indent=2, ensure_ascii=False))
        return f"<pre><code>{data}</code></pre>", ""
    numbers = {s.number for s in result.sources}
    html, headings = render_answer(result.answer or "", numbers, result.images)
    return html, _toc(headings)


def render_html(record: SessionRecord) -> str:
    """The whole report as one HTML document."""
    body, toc = _body(record)
    quotes = {c.number: c.quote for c in record.result.citations}
    sources = "".join(_source_item(s, quotes.get(s.number)) for s in record.result.sources)
    title = escape(record.question)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        '<meta name="generator" content="Sleuth">\n'
        f"<title>{title}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n"
        f"<header><h1>{title}</h1>{_meta(record)}</header>\n{toc}\n"
        f'<article id="answer">\n{body}</article>\n'
        f'<section id="sources"><h2>Sources</h2><ol class="sources">{sources}</ol></section>\n'
        "</main>\n</body>\n</html>\n"
    )
