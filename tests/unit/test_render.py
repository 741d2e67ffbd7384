import io

from sleuth.cli.render import Progress
from sleuth.events import Notice, WriterDelta, WriterStarted


def test_deep_drafts_stream_round_by_round() -> None:
    drafts, status = io.StringIO(), io.StringIO()
    progress = Progress(stream=status, live=False, drafts=drafts)
    for event in (
        WriterStarted("llm", (), 1),
        WriterDelta("first "),
        WriterDelta("draft"),
        WriterStarted("llm", (), 2),
        WriterDelta("second draft"),
    ):
        progress(event)
    assert drafts.getvalue() == "first draft\n\n---\n## Round 2 (deep)\n\nsecond draft"
    assert status.getvalue() == ""


def test_notices_always_show_and_verbose_shows_every_event() -> None:
    status = io.StringIO()
    progress = Progress(stream=status, verbose=True, live=False)
    progress(Notice("fallback used"))
    progress(WriterStarted("extractive", (), 1))
    progress(WriterDelta("not shown"))
    lines = status.getvalue().splitlines()
    assert lines[0] == "sleuth: fallback used"
    assert lines[1].startswith("writer.start ")
    assert "not shown" not in status.getvalue()
