"""bench/replay.py: saved evidence round-trips, and the replay finishes an answer as a quick run
does (the writer, the citation check, the confidence rule), scored as `sleuth eval` scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench.replay import Evidence, Replayed, figures, held_out, main, replay, table

from sleuth.types import Passage, Source

Q = "Who wrote the novel Moby-Dick?"
ANSWER_PAGE = (
    "Moby-Dick is an 1851 novel by the American writer Herman Melville. "
    "The book is the sailor Ishmael's narrative of the maniacal quest of Ahab."
)
OFF_TOPIC = "Whaling ships sailed from Nantucket for decades. Crews spent years at sea."


def source(number: int, title: str, text: str) -> Source:
    return Source(number, f"http://example.org/{number}", title, 1.0, (Passage(text, 1.0, 0),),
                  text=text)  # fmt: skip


def evidence(answerable: bool, *sources: Source) -> Evidence:
    return Evidence("q1", Q, ("Herman Melville",), answerable, sources)


def test_evidence_round_trips_through_json() -> None:
    item = evidence(True, source(1, "Moby-Dick", ANSWER_PAGE))
    again = Evidence.from_json(json.loads(json.dumps(item.to_json())))
    assert again == item


def test_an_answering_page_is_quoted_first_and_cited() -> None:
    done = replay(evidence(True, source(1, "Moby-Dick - Wikipedia", ANSWER_PAGE)))
    assert done.first and done.right and not done.declined
    assert "Herman Melville [1]" in done.answer


def test_pages_that_do_not_answer_make_a_not_found_answer_graded_low() -> None:
    done = replay(evidence(False, source(1, "Whaling in Nantucket", OFF_TOPIC)))
    assert done.declined and done.right  # right for an unanswerable question: it said so
    assert done.confidence == "low" and not done.first
    answered = replay(evidence(True, source(1, "Whaling in Nantucket", OFF_TOPIC)))
    assert answered.declined and not answered.right  # wrong when the question had an answer


def test_figures_count_levels_and_the_score_command_prints_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = [
        evidence(True, source(1, "Moby-Dick - Wikipedia", ANSWER_PAGE)),
        evidence(True, source(1, "Whaling in Nantucket", OFF_TOPIC)),
    ]
    done = [replay(i) for i in items]
    f = figures(items, done)
    assert f.n == 2 and f.in_text.hits == 1 and f.declined.hits == 1
    assert sum(rate.hits for rate in f.given.values()) == 2
    path = tmp_path / "saved.jsonl"
    path.write_text("".join(json.dumps(i.to_json()) + "\n" for i in items))
    assert main(["score", str(path)]) == 0
    printed = capsys.readouterr().out
    assert "saved.jsonl: answerable (n=2)" in printed
    assert "answer in the text             0.50" in printed


def test_a_high_answer_right_only_further_down_is_counted_apart() -> None:
    """`high` is right when the text holds the answer; how often its first sentence does is a
    row of its own, so a lead that is not the answer cannot hide behind a later sentence."""
    items = [evidence(True, source(1, "Moby-Dick", ANSWER_PAGE))] * 3
    done = [
        Replayed("Herman Melville wrote it [1].", "high", False, True, True, False, False),
        Replayed(
            "It is a novel [1]. Melville wrote it [1].", "high", False, True, False, False, False
        ),
        Replayed("It is a novel [1].", "medium", False, False, False, False, False),
    ]
    f = figures(items, done)
    assert (f.right["high"].hits, f.right["high"].n) == (2, 2)
    assert (f.lead_high.hits, f.lead_high.n) == (1, 2)
    assert "high, the first sentence holds it 0.50" in table("x", f, answerable=True)
    assert "first sentence holds it" not in table("x", f, answerable=False)


def test_high_on_pages_that_hold_no_answer_is_counted() -> None:
    """An answerable question whose kept pages hold no gold answer cannot be answered from
    them: `high` there is `high` on pages that cannot answer, counted in a row of its own."""
    held = evidence(True, source(1, "Moby-Dick", ANSWER_PAGE))
    unheld = evidence(True, source(1, "Whaling in Nantucket", OFF_TOPIC))
    assert replay(held).held is True and replay(unheld).held is False
    assert replay(evidence(False, source(1, "Whaling in Nantucket", OFF_TOPIC))).held is None
    items = [held, unheld, unheld]
    done = [
        Replayed("Herman Melville wrote it [1].", "high", False, True, True, False, False,
                 held=True),
        Replayed("Whalers sailed [1].", "high", False, False, False, False, False, held=False),
        Replayed("Whalers sailed [1].", "medium", False, False, False, False, False,
                 held=False),
    ]  # fmt: skip
    f = figures(items, done)
    assert (f.held.hits, f.held.n) == (1, 3)
    assert (f.unheld_high.hits, f.unheld_high.n) == (1, 2)
    printed = table("x", f, answerable=True)
    assert "a kept page holds the answer   0.33" in printed
    assert "no kept page holds it: high    0.50" in printed


def test_a_yes_no_question_is_scored_by_the_verdict_its_answer_states(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    item = Evidence("q2", "Is Moby-Dick a novel?", ("yes",), True,
                    (source(1, "Whaling in Nantucket", OFF_TOPIC),))  # fmt: skip
    done = replay(item)
    assert item.yes_no and done.verdict == "no"  # "do not contain" reads as no: wrong
    assert not done.right and done.first is None and not done.hedged
    assert figures([item], [done]).verdict.n == 1
    assert done.stated is False  # no sentence states a verdict: the scorer read cue words
    path = tmp_path / "yes-no.jsonl"
    path.write_text(json.dumps(item.to_json()) + "\n")
    assert main(["score", str(path)]) == 0
    printed = capsys.readouterr().out
    assert "verdict right (yes/no)         0.00" in printed
    assert "read from a sentence         0.00" in printed


def test_a_verdict_read_from_a_sentence_is_counted_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    finding = "Daily coffee did not improve memory in older adults over five years."
    said = Evidence("q3", "Does daily coffee improve memory in older adults?", ("no",), True,
                    (source(1, "Coffee and memory in older adults", finding),))  # fmt: skip
    none = Evidence("q4", "Is Moby-Dick a novel?", ("yes",), True,
                    (source(1, "Whaling in Nantucket", OFF_TOPIC),))  # fmt: skip
    done = [replay(said), replay(none)]
    assert [d.stated for d in done] == [True, False]
    f = figures([said, none], done)
    assert (f.stated.hits, f.stated.n) == (1, 2)
    assert (f.stated_right.hits, f.stated_right.n) == (1, 1)
    path = tmp_path / "yes-no.jsonl"
    path.write_text("".join(json.dumps(i.to_json()) + "\n" for i in (said, none)))
    assert main(["score", str(path)]) == 0
    printed = capsys.readouterr().out
    assert "verdict right (yes/no)         0.50" in printed
    assert "right when read              1.00" in printed


def test_the_design_and_held_out_parts_split_the_questions_by_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = [f"pubmedqa-{n}" for n in range(200)]
    held = [i for i in ids if held_out(i)]
    assert 60 < len(held) < 100  # about two fifths
    assert held == [i for i in ids if held_out(i)]  # fixed by the id, not by the run
    items = [Evidence(i, Q, ("Herman Melville",), True, ()) for i in ids[:10]]
    path = tmp_path / "split.jsonl"
    path.write_text("".join(json.dumps(i.to_json()) + "\n" for i in items))
    counts = []
    for part in ("design", "held-out"):
        assert main(["score", str(path), "--part", part]) == 0
        counts.append(int(capsys.readouterr().out.split("(n=")[1].split(")")[0]))
    assert counts == [sum(not held_out(i.id) for i in items), sum(held_out(i.id) for i in items)]


def _collect_files(
    tmp_path: Path, docs: Path, lines: list[dict[str, object]]
) -> dict[str, Evidence]:
    questions = tmp_path / "questions.jsonl"
    questions.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "own.jsonl"
    argv = ["collect", str(questions), "--dataset", "own", "--files", str(docs)]
    assert main([*argv, "--out", str(out)]) == 0
    return {
        e.id: e
        for e in (Evidence.from_json(json.loads(x)) for x in out.read_text().split("\n") if x)
    }


def test_collect_over_the_users_own_files_keeps_each_questions_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`collect --files`: no web, each question answered from the folder's files. A line
    marked `"answerable": false` needs no gold answer and is saved as unanswerable; a question
    none of the files' words match reads the one file whole (`search.local`)."""
    monkeypatch.setenv("SLEUTH_HOME", str(tmp_path / "home"))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "books.md").write_text(f"# Books\n\n{ANSWER_PAGE}\n", encoding="utf-8")
    saved = _collect_files(
        tmp_path,
        docs,
        [
            {"id": "own/0", "dataset": "own", "question": Q, "answers": ["Herman Melville"]},
            {"id": "own/1", "dataset": "own", "question": "Zyxx qwvv?", "answers": [],
             "answerable": False},
        ],
    )  # fmt: skip
    assert [s.url for s in saved["own/0"].sources] == [(docs / "books.md").as_uri()]
    assert saved["own/0"].answerable and replay(saved["own/0"]).first
    assert not saved["own/1"].answerable and saved["own/1"].answers == ()
    assert [s.url for s in saved["own/1"].sources] == [(docs / "books.md").as_uri()]
    assert replay(saved["own/1"]).declined
    assert "2 questions ->" in capsys.readouterr().out


def test_collect_keeps_no_sources_for_a_question_that_finds_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More files than a search returns are not read whole: a question that matches none of
    them keeps no sources rather than ending the collection (the CLI exits 3 there)."""
    monkeypatch.setenv("SLEUTH_HOME", str(tmp_path / "home"))
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(11):
        (docs / f"room{i}.md").write_text(f"# Room {i}\n\nThe kettle is on stove {i}.\n")
    line = {"id": "own/0", "dataset": "own", "question": "Zyxx qwvv?", "answers": ["x"]}
    assert _collect_files(tmp_path, docs, [line])["own/0"].sources == ()


def test_collect_refuses_hidden_with_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--hidden` hides web pages: over files it would be silently ignored, so it is refused."""
    argv = ["collect", "q.jsonl", "--files", str(tmp_path), "--hidden", "--out", "x.jsonl"]
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    assert "--hidden hides the offline web's gold pages" in capsys.readouterr().err
