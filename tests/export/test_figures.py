"""A report's images where people read it: after the block of the sentence each illustrates,
in the HTML export and the UI as `data:` URIs of the checked bytes (alt text and captions as
text, never markup), in markdown as `![alt](url)`; through the session codec unchanged."""

from __future__ import annotations

import json
from dataclasses import replace

from sleuth.export.html import render_answer
from sleuth.export.markdown import result_markdown
from sleuth.server.ui.answer import answer_html
from sleuth.store.codec import result_from_json, result_to_json
from sleuth.types import (
    Figure,
    PageImage,
    Passage,
    Result,
    Source,
    SourceTrust,
    Usage,
    Verification,
)
from tests.testweb.images import png

ANSWER = (
    "## Retention\n\n"
    "- Audit logs are kept for 90 days [1].\n- Exports run nightly [1].\n\n"
    "Deleted logs cannot be recovered [1]. After that they are gone.\n\n"
    "## Costs\n\nStorage is billed per gigabyte [1].\n"
)
KEPT = Figure(1, "http://cdn.example/chart.png", 'Chart "90 days" <script>x</script>',
              "Kept for 90 days [2]", "Audit logs are kept for 90 days.", "image/png",
              png())  # fmt: skip
GONE = Figure(1, "http://cdn.example/gone.png", "Deleted logs are gone", "",
              "Deleted logs cannot be recovered.", "image/png", png())  # fmt: skip


def test_figures_follow_the_block_of_their_sentence() -> None:
    html, headings = render_answer(ANSWER, {1}, [GONE, KEPT])
    assert [h[2] for h in headings] == ["Retention", "Costs"]
    list_end, para_end = html.index("</ul>"), html.index("After that they are gone.</p>")
    kept_at, gone_at = html.index('alt="Chart'), html.index('alt="Deleted')
    assert list_end < kept_at < html.index("Deleted logs cannot")  # after the whole list
    assert para_end < gone_at < html.index("<h2", para_end)
    assert html.count("<figure") == 2 and "\ue002" not in html


def test_alt_text_and_captions_are_text_and_the_bytes_are_inline() -> None:
    html, _ = render_answer(ANSWER, {1}, [KEPT])
    assert "<script>" not in html
    assert 'alt="Chart &quot;90 days&quot; &lt;script&gt;x&lt;/script&gt;"' in html
    assert "<figcaption>Kept for 90 days [2]" in html  # a caption's [2] is no citation link
    assert 'src="data:image/png;base64,' in html and KEPT.url not in html


def test_a_figure_without_bytes_or_sentence_is_left_out() -> None:
    no_bytes = replace(KEPT, data=b"")
    elsewhere = replace(KEPT, sentence="A sentence an edited revision dropped.")
    for figure in (no_bytes, elsewhere):
        html, _ = render_answer(ANSWER, {1}, [figure])
        assert "<figure" not in html
    smuggled, _ = render_answer("Text \ue0020\ue003 here [1].", {1}, [])
    assert "\ue002" not in smuggled


def test_the_ui_answer_shows_figures_and_unsupported_marks_together() -> None:
    html = answer_html(ANSWER, {1}, ["Exports run nightly."], "unsupported", [KEPT])
    assert '<mark class="unsupported"' in html and '<figure class="illustration">' in html


def result_with(*figures: Figure) -> Result:
    shows = (PageImage(KEPT.url, KEPT.alt, KEPT.caption),)
    source = Source(
        1, "http://docs.example/logs", "Logs", 1.0, (Passage("x", 1.0, 0),), images=shows
    )
    return Result("Q?", ANSWER, (), (source,), (), "high", Verification(4, 4),
                  SourceTrust("high", {}), Usage(), images=figures)  # fmt: skip


def test_markdown_puts_the_image_link_after_the_block() -> None:
    text = result_markdown(result_with(KEPT))
    line = '![Chart "90 days" &lt;script>x&lt;/script>](http://cdn.example/chart.png)'
    assert f"- Exports run nightly [1].\n\n{line}\n*Kept for 90 days \\[2\\]* [1]\n" in text


def test_the_session_codec_keeps_the_bytes_and_the_public_json_does_not() -> None:
    """Sessions keep the checked bytes and each source's page images (a steered or resumed
    run still shows them); the public result lists images without bytes."""
    result = result_with(KEPT, GONE)
    assert result_from_json(json.loads(json.dumps(result_to_json(result)))) == result
    public = result.to_json()["images"]
    assert public[0]["bytes"] == len(png()) and "data" not in public[0]
    lean = result_from_json(result_to_json(result, with_text=False))
    assert [f.data for f in lean.images] == [b"", b""]
    assert "images" not in result.to_json()["sources"][0]  # a page's candidates stay inside
