"""HTML extraction: main text, title, and the published date from each place a page declares it."""

from __future__ import annotations

import pytest

from sleuth.fetch import extract_html
from sleuth.fetch.extract import normalize_date

BODY = (
    "<nav>Home · News · Sport · Weather</nav><div class=cookie>We use cookies. Accept?</div>"
    "<article><h1>Tidal energy in the Bay of Fundy</h1>"
    "<p>The Bay of Fundy has the highest tides in the world, reaching sixteen metres. "
    "Engineers have tested several in-stream turbines there since 2009.</p>"
    "<p>Sediment and strong currents damaged early prototypes, but newer designs survived "
    "a full winter of operation in 2022 and fed power into the provincial grid.</p>"
    "</article><footer>© 2024 Example News · Privacy · Terms</footer>"
)


def page(head: str = "", body: str = BODY) -> str:
    title = "<title>Tidal energy | Example News</title>"
    return f"<html><head>{title}{head}</head><body>{body}</body></html>"


def test_date_in_url_is_used_but_not_a_copyright_year() -> None:
    assert extract_html(page(), "http://news.example.com/2021/03/04/tides").published == (
        "2021-03-04"
    )


def test_main_text_and_title() -> None:
    out = extract_html(page(), "http://news.example.com/tides")
    assert "highest tides in the world" in out.text
    assert "newer designs survived" in out.text
    assert "We use cookies" not in out.text
    assert out.title.startswith("Tidal energy")
    assert out.published is None


@pytest.mark.parametrize(
    ("head", "body", "expected"),
    [
        (
            '<script type="application/ld+json">{"@type": "NewsArticle", '
            '"datePublished": "2022-11-03T08:15:00Z"}</script>',
            BODY,
            "2022-11-03T08:15:00+00:00",
        ),
        (
            '<script type="application/ld+json">{"@graph": [{"@type": "WebPage"}, '
            '{"@type": "Article", "datePublished": "2021-06-30"}]}</script>',
            BODY,
            "2021-06-30",
        ),
        (
            '<meta property="article:published_time" content="2020-02-29T12:00:00+01:00">',
            BODY,
            "2020-02-29T12:00:00+01:00",
        ),
        ('<meta name="citation_publication_date" content="2019/07/04">', BODY, "2019-07-04"),
        ("", '<time datetime="2018-03-15">March 15</time>' + BODY, "2018-03-15"),
        (
            "",
            '<time datetime="2001-01-01">old</time><time itemprop="datePublished" '
            'datetime="2017-09-09T10:00">x</time>' + BODY,
            "2017-09-09T10:00:00",
        ),
    ],
    ids=["jsonld", "jsonld-graph", "meta-article", "meta-citation", "time", "time-marked"],
)
def test_published_date_sources(head: str, body: str, expected: str) -> None:
    assert extract_html(page(head, body), "http://news.example.com/tides").published == expected


def test_jsonld_beats_meta_beats_time() -> None:
    head = (
        '<meta property="article:published_time" content="2020-01-01">'
        '<script type="application/ld+json">{"datePublished": "2021-01-01"}</script>'
    )
    body = '<time datetime="2019-01-01">x</time>' + BODY
    assert extract_html(page(head, body), "http://x.example/").published == "2021-01-01"


def test_broken_jsonld_is_skipped() -> None:
    head = (
        '<script type="application/ld+json">{not json</script>'
        '<meta name="date" content="2016-05-05">'
    )
    assert extract_html(page(head), "http://x.example/").published == "2016-05-05"


def test_visible_text_fallback_when_no_main_text() -> None:
    html = "<html><body><script>var a = 1;</script><div>Tiny <b>page</b></div><div>two</div>"
    out = extract_html(html, "http://x.example/")
    assert "Tiny page" in out.text or "Tiny\npage" in out.text
    assert "var a" not in out.text


def test_deeply_nested_html_does_not_crash() -> None:
    out = extract_html("<div>" * 200 + "deep text" + "</div>" * 200, "http://x.example/")
    assert "deep text" in out.text
    # libxml2 gives up on trees deeper than ~255; the result is empty, never an exception.
    assert extract_html("<div>" * 50_000 + "lost", "http://x.example/").text == ""


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2020-05-01", "2020-05-01"),
        ("2020-05-01T10:00:00Z", "2020-05-01T10:00:00+00:00"),
        ("2020/5/1", "2020-05-01"),
        ("Published 2020-13-45", None),
        ("yesterday", None),
        ("", None),
    ],
)
def test_normalize_date(raw: str, expected: str | None) -> None:
    assert normalize_date(raw) == expected


def test_pages_running_scripts_are_marked() -> None:
    from sleuth.fetch.extract import extract_html

    app = '<html><body><div id="root"></div><script src="/app.js"></script></body></html>'
    plain = (
        '<html><head><script type="application/ld+json">{"@type": "Article"}</script>'
        "</head><body><p>A short stub article about a town.</p></body></html>"
    )
    assert extract_html(app, "http://a.example/").scripted
    assert not extract_html(plain, "http://b.example/").scripted


def test_pdfs_extracted_from_many_threads_at_once() -> None:
    # PDFium is not thread-safe; without the module's lock this crashes the interpreter.
    from concurrent.futures import ThreadPoolExecutor

    from sleuth.fetch.pdf import extract_pdf
    from tests.fetch.conftest import make_pdf

    data = make_pdf([f"Page {i} about audit log retention. " * 40 for i in range(12)])
    with ThreadPoolExecutor(8) as pool:
        texts = list(pool.map(lambda _: extract_pdf(data).text, range(48)))
    assert len(set(texts)) == 1 and "Page 11" in texts[0]


def test_a_page_of_too_many_elements_skips_main_text_detection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """550,000 tiny paragraphs kept trafilatura busy for 100 s; past the element cap the
    visible text is used instead, and nothing is lost."""
    from sleuth.fetch import extract

    called: list[int] = []
    monkeypatch.setattr(extract, "_trafilatura", lambda html, url: called.append(1))
    many = "<html><body>" + "<p>word</p>" * (extract.MAX_MAIN_TEXT_ELEMENTS + 10) + "</body></html>"
    got = extract.extract_html(many, "http://example.org/many")
    assert called == [] and got.text.count("word") == extract.MAX_MAIN_TEXT_ELEMENTS + 10
    extract.extract_html("<html><body><p>few words</p></body></html>", "http://example.org/few")
    assert called == [1]
