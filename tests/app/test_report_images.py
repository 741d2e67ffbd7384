"""Images in reports (issue 29, item 5) end to end on the loopback test web: a read page's
figure is shown beside the sentence it illustrates — in the result, the saved session, the HTML
export (its checked bytes inline) and the markdown report — while images that page names on
private addresses are never requested, oversized and non-image responses are dropped, and an
image URL in the model's text is never fetched."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator

import pytest

from sleuth.app.application import Sleuth
from sleuth.export.figures import span
from sleuth.settings import Settings
from tests.llm.fake_servers import FakeLLMServer, Received, Reply
from tests.server.research_llm import cited_number, prompt_of
from tests.testweb.images import png
from tests.testweb.server import TestWeb

Q = "How long does CloudCo keep audit logs by default?"
PAGE = "http://help.cloudco.example/security/audit-logs"
CHART = "http://cdn.cloudco.example/img/retention-chart.png"
BIG = "http://cdn.cloudco.example/img/retention-poster.png"
NOT_IMAGE = "http://cdn.cloudco.example/img/retention-table.png"
PRIVATE = "http://10.0.0.7/internal/audit-retention-dashboard.png"
EVIL = "http://evil.example/collect.png"


def page_html(web: TestWeb) -> str:
    loopback = f"{web.base}/secret-retention.png"
    return f"""<!doctype html><html><head><title>Audit logs | CloudCo Help</title></head>
<body><nav><a href="/">Help</a></nav><article><h1>Audit logs</h1>
<p>CloudCo keeps audit logs for 90 days by default. Administrators can extend the audit log
retention period to 400 days in the security console.</p>
<figure><img src="{CHART}" alt="Chart of audit log retention: 90 days by default">
<figcaption>Audit logs are kept for 90 days by default, or up to 400 days.</figcaption>
</figure>
<p>Deleted audit logs cannot be recovered after the retention period ends.</p>
<img src="{PRIVATE}" alt="Audit log retention dashboard showing 90 days by default">
<img src="{loopback}" alt="Audit logs kept for 90 days by default (internal copy)">
<img src="{BIG}" alt="Poster: audit logs are kept 90 days by default">
<img src="{NOT_IMAGE}" alt="Table of audit log retention, 90 days by default">
</article></body></html>"""


@pytest.fixture
def cloud_web(testweb_env: TestWeb) -> TestWeb:
    web = testweb_env
    web.add_page(PAGE, page_html(web))
    web.add_page(CHART, png(), content_type="image/png")
    web.add_page(BIG, png() + b"\x00" * 400_000, content_type="image/png")
    web.add_page(NOT_IMAGE, "<html><body>retention table</body></html>")
    web.add_page("/secret-retention.png", png(), content_type="image/png")
    web.add_page(EVIL, png(), content_type="image/png")
    hit = {"url": PAGE, "title": "Audit logs | CloudCo Help", "content": "audit logs 90 days"}
    web.script_search("audit logs", [hit])
    return web


def assert_never_requested(web: TestWeb) -> None:
    assert not web.hits_for("10.0.0.7")
    assert "/secret-retention.png" not in web.hits
    assert not web.hits_for("evil.example")


async def test_a_read_pages_figure_is_shown_beside_its_sentence(cloud_web: TestWeb) -> None:
    async with Sleuth(Settings.from_env()) as app:
        result = await app.ask(Q, search="searxng", search_fallback="none", images=True)
        assert result.session_id is not None
        html = app.export(result.session_id, "html")
        markdown = app.export(result.session_id, "md")
        saved = await app.saved.get(result.session_id)
    assert [(f.url, f.number, f.type, f.data) for f in result.images] == [
        (CHART, 1, "image/png", png())
    ]
    figure = result.images[0]
    assert figure.alt == "Chart of audit log retention: 90 days by default"
    assert figure.caption.startswith("Audit logs are kept for 90 days")
    assert "90 days by default" in figure.sentence
    assert span(result.answer or "", figure.sentence) is not None  # a sentence of the answer
    # The result lists it without its bytes; the saved session keeps them.
    listed = json.loads(json.dumps(result.to_json()))["images"]
    assert listed == [
        {"number": 1, "url": CHART, "alt": figure.alt, "caption": figure.caption,
         "sentence": figure.sentence, "type": "image/png", "bytes": len(png())}
    ]  # fmt: skip
    assert saved.result.images == result.images
    # The HTML report embeds the checked bytes: opening it asks no host for anything.
    inline = f"data:image/png;base64,{base64.b64encode(png()).decode()}"
    assert f'<img src="{inline}"' in html and '<figure class="illustration">' in html
    assert CHART not in html.split("<article", 1)[1].split("</article>", 1)[0]
    answer = html.split('<article id="answer">', 1)[1]
    assert answer.index("90 days") < answer.index("<figure")  # after its sentence's block
    assert f"![Chart of audit log retention: 90 days by default]({CHART})" in markdown
    # Public images that are too large or not images were tried and dropped.
    assert BIG in cloud_web.hits and NOT_IMAGE in cloud_web.hits
    assert_never_requested(cloud_web)


async def test_images_are_off_unless_asked_for(cloud_web: TestWeb) -> None:
    async with Sleuth(Settings.from_env()) as app:
        result = await app.ask(Q, search="searxng", search_fallback="none")
    assert result.images == () and result.to_json()["images"] == []
    assert cloud_web.hits_for("cdn.cloudco.example") == []
    assert_never_requested(cloud_web)


@pytest.fixture
def llm() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer("openai").start()
    yield server
    server.stop()


def writer_with_image_urls(received: Received) -> Reply:
    """A model (or a page speaking through it) that puts image URLs of its own in the text."""
    prompt = prompt_of(received)
    if "<sources>" not in prompt:
        return Reply(chunks=["[]"])
    n = cited_number(prompt, "90 days by default")
    return Reply(
        chunks=[
            f"CloudCo keeps audit logs for 90 days by default [{n}].\n\n"
            f"![retention chart, audit logs 90 days by default]({EVIL}) "
            f'<img src="{EVIL}?html" alt="audit logs 90 days"> See {EVIL}?plain.'
        ]
    )


async def test_an_image_url_in_the_models_text_is_never_fetched(
    cloud_web: TestWeb, llm: FakeLLMServer
) -> None:
    llm.responder = writer_with_image_urls
    async with Sleuth(Settings.from_env()) as app:
        result = await app.ask(
            Q, search="searxng", search_fallback="none", images=True,
            base_url=llm.url, api_key="k", model="m",
        )  # fmt: skip
        assert result.session_id is not None
        html = app.export(result.session_id, "html")
    assert result.writer == "llm"
    assert [f.url for f in result.images] == [CHART]
    assert_never_requested(cloud_web)
    assert f'src="{EVIL}' not in html  # markdown images and raw HTML stay text
