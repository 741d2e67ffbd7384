"""A translated report keeps its citation check (issue 27, from the mission audit): the lexical
check cannot match Chinese sentences with English sources, so after a translation every
sentence read as unsupported. A translated sentence is now checked through the sentence it
translates; a sentence the translation added stays unsupported."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sleuth.app import revise
from sleuth.app.application import Sleuth
from sleuth.pipeline.cite import claims
from sleuth.settings import Settings
from tests.llm.fake_servers import FakeLLMServer, Received, Reply

NOTES = (
    "# Example Cloud audit logs\n\n"
    "Example Cloud keeps audit logs for 90 days by default. Enterprise customers can extend "
    "the audit log retention to 365 days. Audit logs can be exported to object storage as "
    "JSON lines every hour.\n"
)
ADDED = "月亮是奶酪做的"


def translator(request: Received) -> Reply:
    """Chinese for every cited sentence of the report, markers kept, and one claim added."""
    prompt = " ".join(str(m.get("content", "")) for m in request.body["messages"])
    report = prompt.split("<report>", 1)[1].split("</report>", 1)[0]
    marks = ["".join(f"[{n}]" for n in c.numbers) for c in claims(report)]
    text = "".join(f"审计日志第{i}句{m}。" for i, m in enumerate(marks)) + f"{ADDED}[1]。"
    return Reply(chunks=[text])


@pytest.fixture
def llm() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer("openai", responder=translator).start()
    yield server
    server.stop()


async def test_a_translation_is_checked_through_the_text_it_translates(
    tmp_path: Path, llm: FakeLLMServer
) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text(NOTES, encoding="utf-8")
    model = {"base_url": llm.url, "api_key": "k", "model": "m"}
    async with Sleuth(Settings.from_env()) as app:
        result = await app.ask(
            "How long does Example Cloud keep audit logs?", search="none", include=(str(notes),)
        )
        session, english = result.session_id or "", result.answer or ""
        assert result.verification.supported == result.verification.checked >= 2
        done = await revise.transform(app, session, english, "translate", "Chinese", **model)
        v = done.verification
        assert "审计日志第0句" in done.text and v.checked == result.verification.checked + 1
        assert [u.sentence for u in v.unsupported] == [f"{ADDED}。"]  # only the added claim
        assert v.supported == v.checked - 1
        alone = revise.check(app, session, done.text)  # what the editor showed before
        assert alone.verification.supported == 0  # the lexical check alone refuses them all
        number = revise.save_revision(app, session, done.text, "translated", basis=english)
        saved = app.sessions.revisions(session)[number - 1]
        assert saved.verification["supported"] == v.supported
