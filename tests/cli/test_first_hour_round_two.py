"""Issue 27, "The first hour, round two": the small frictions of the CLI's output, reproduced
offline through the real entry point (`--search=none --include=FILES`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sleuth.text import split_sentences
from tests.cli.helpers import run

ORWELL = (
    "# George Orwell\n\n"
    'George Orwell\'s best-known novel is "Nineteen Eighty-Four." It was published in 1949 '
    "by Secker and Warburg. His other famous novel is “Animal Farm.” It appeared in 1945.\n\n"
    '"It was a bright cold day in April. The clocks were striking thirteen," the novel '
    "begins. Orwell's novel about Winston Smith was written on the island of Jura.\n"
)


def test_a_closing_quote_stays_with_the_sentence_it_closes() -> None:
    text = 'He wrote "Nineteen Eighty-Four." It sold. She said (it was "late.") Then left.'
    assert [s for _, s in split_sentences(text)] == [
        'He wrote "Nineteen Eighty-Four."',
        "It sold.",
        'She said (it was "late.")',
        "Then left.",
    ]


def test_chinese_full_stops_end_sentences_and_markers_after_them_belong_to_them() -> None:
    from sleuth.pipeline.cite import claims

    text = "审计日志默认保留90天[1]。企业版可延长至365天。[2]导出为JSON格式[1][2]。"
    assert [s for _, s in split_sentences(text)] == [
        "审计日志默认保留90天[1]。", "企业版可延长至365天。", "[2]导出为JSON格式[1][2]。"
    ]  # fmt: skip
    assert [(c.sentence, c.numbers) for c in claims(text)] == [
        ("审计日志默认保留90天。", (1,)), ("企业版可延长至365天。", (2,)),
        ("导出为JSON格式。", (1, 2)),
    ]  # fmt: skip


def test_the_extractive_answer_never_shows_half_a_quotation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "orwell.md"
    notes.write_text(ORWELL, encoding="utf-8")
    question = "What is George Orwell's best-known novel Nineteen Eighty-Four about?"
    args = ["ask", question, "--search=none", f"--include={notes}", "--json", "--no-sessions"]
    code, out, err = run(args, capsys)
    assert code == 0, err
    answer = json.loads(out)["answer"]
    assert '"Nineteen Eighty-Four [1]."' in answer
    for sentence in (s for _, s in split_sentences(answer)):
        assert sentence.count('"') % 2 == 0, sentence
        assert sentence.count("“") == sentence.count("”"), sentence


def test_ask_help_lists_its_options_in_sections_each_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import click

    from sleuth.cli.ask import ask

    code, out, _ = run(["ask", "--help"], capsys)
    assert code == 0
    headings = re.findall(r"^(\S[^\n]*):$", out, re.MULTILINE)
    assert headings[:4] == ["Options", "Output", "Search", "Reading pages"]
    assert len(headings) >= 8
    shown = re.findall(r"^\s+(?:-\w, )?(--[\w-]+)", out, re.MULTILINE)
    with click.Context(ask, info_name="ask") as ctx:
        params = ask.get_params(ctx)
    flags = [next(o for o in p.opts if o.startswith("--"))
             for p in params if isinstance(p, click.Option) and not p.hidden]  # fmt: skip
    assert sorted(shown) == sorted(flags)  # every option once: nothing lost, nothing twice


def test_search_help_names_every_registered_backend(capsys: pytest.CaptureFixture[str]) -> None:
    from sleuth.registry import registries

    for command in (["ask"], ["search"], ["batch"]):
        code, out, _ = run([*command, "--help"], capsys)
        assert code == 0
        block = " ".join(out.split("--search SPEC", 1)[1].split("--search-fallback", 1)[0].split())
        names = [e.name for e in registries().search]
        assert f"Backends: {', '.join(names)}." in block, command


@pytest.mark.extra("browser")
def test_doctor_fails_a_browser_it_was_told_to_use_that_is_dead(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 27: a dead CDP endpoint passed with a warning and exit 0."""
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}"
    code, out, err = run(
        ["doctor", "--search=none", f"--browser-cdp-endpoint={dead}", "--json"], capsys
    )
    assert code == 1, err
    report = json.loads(out)
    browser = [c for c in report["checks"] if c["section"] == "browser"]
    assert [(c["name"], c["status"]) for c in browser] == [("cdp", "fail")]
    assert report["ok"] is False
    failing = [c["section"] for c in report["checks"] if c["status"] == "fail"]
    assert failing == ["browser"]  # nothing else made it exit 1
