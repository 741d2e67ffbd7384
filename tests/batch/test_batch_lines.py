"""Batch input lines and the results file: every bad line gets its own clear reason, a huge
line is refused unread, and a half-written last record (a kill mid-write) is cut off."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sleuth.app.batch import MAX_LINE_BYTES, BadLine, Item, parse_line, parse_object
from sleuth.app.batchfile import ResultsFile, read_questions


def bad(raw: bytes) -> str:
    parsed = parse_line(raw, 1)
    assert isinstance(parsed, BadLine), parsed
    return parsed.message


def test_a_good_line_keeps_its_id_and_checked_options() -> None:
    parsed = parse_line(b'{"id": 7, "question": " What  is V8? ", "depth": "deep", '
                        b'"max_sources": "8", "freshness": "2024-01-01to2024-02-01", '
                        b'"include_domains": ["v8.dev"]}', 3)  # fmt: skip
    assert parsed == Item(
        "7",
        3,
        "What is V8?",
        {"deep": 2, "max_sources": 8, "since": "2024-01-01", "allow_domain": ["v8.dev"]},
    )


def test_a_line_without_id_is_named_by_its_text_so_a_resume_finds_it() -> None:
    one = parse_line(b'{"question": "What is V8?"}', 1)
    again = parse_line(b'  {"question": "What is V8?"}  ', 9)
    other = parse_line(b'{"question": "What is V9?"}', 1)
    assert one.id == again.id != other.id
    assert parse_object({"query": "What is V8?"}, 1, "x").id == "x"  # the API's field name


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (b"not json", "not JSON"),
        (b"[1, 2]", "JSON object"),
        (b'"just a string"', "JSON object"),
        (b'{"id": "a"}', "no question"),
        (b'{"question": "   "}', "empty"),
        (b'{"question": 42}', "must be text"),
        (b'{"question": "' + b"x" * 2001 + b'"}', "at most 2000"),
        (b'{"question": "q", "max_sources": 500}', "between 1 and 50"),
        (b'{"question": "q", "depth": "very"}', "quick or deep"),
        (b'{"question": "q", "since": "yesterday-ish"}', "since"),
        (b'{"question": "q", "freshness": "soon"}', "freshness"),
        (b'{"question": "q", "search": "brave"}', "batch-wide setting 'search'"),
        (b'{"question": "q", "base_url": "http://evil"}', "batch-wide setting 'base_url'"),
        (b'{"question": "q", "schema": "/etc/passwd"}', "JSON Schema object"),
        (b'{"question": "q", "id": {"a": 1}}', "id must be"),
        (b'{"question": "q", "id": ""}', "id must be"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"[" * 60_000, "nested too deeply"),
        (b"[" * 100_000, "at most 64000"),
    ],
)
def test_each_bad_line_says_what_is_wrong(raw: bytes, words: str) -> None:
    assert words in bad(raw)


def test_a_bad_option_keeps_the_line_id(tmp_path: Path) -> None:
    parsed = parse_line(b'{"id": "q1", "question": "q", "max_sources": 0}', 1)
    assert isinstance(parsed, BadLine) and parsed.id == "q1"
    assert parsed.record()["error"]["kind"] == "input"


def test_a_huge_line_is_refused_and_the_next_lines_still_read(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    huge = b'{"question": "' + b"a" * (MAX_LINE_BYTES * 3) + b'"}\n'
    path.write_bytes(b'{"question": "first"}\n\n' + huge + b'{"question": "last"}\n')
    parsed = list(read_questions(path))
    assert [p.line for p in parsed] == [1, 3, 4]
    assert isinstance(parsed[1], BadLine) and "over 64000 bytes" in parsed[1].message
    assert isinstance(parsed[2], Item) and parsed[2].question == "last"


def test_a_missing_questions_file_is_a_usage_error(tmp_path: Path) -> None:
    from sleuth.errors import UsageError

    with pytest.raises(UsageError, match="cannot read"):
        list(read_questions(tmp_path / "absent.jsonl"))


def test_a_half_written_last_record_is_cut_before_appending(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    path.write_text('{"id": "a", "result": {}}\n{"id": "b", "resu', encoding="utf-8")
    out = ResultsFile(path)
    assert out.answered() == {"a"}
    out.write({"id": "b", "result": {}})
    out.close()
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(x)["id"] for x in lines] == ["a", "b"]


def test_a_results_file_of_only_half_a_record_starts_over(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    path.write_text('{"id": "a", "res', encoding="utf-8")
    assert ResultsFile(path).answered() == set()
    assert path.read_text(encoding="utf-8") == ""


def test_the_last_record_of_an_id_decides_and_forget_keeps_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    path.write_text(
        '{"id": "a", "error": {}}\n{"id": "b", "error": {}}\nnot a record\n'
        '{"id": "a", "result": {}}\n{"id": "c", "result": {}}\n',
        encoding="utf-8",
    )
    out = ResultsFile(path)
    prior = out.prior()
    assert prior.answered == {"a", "c"} and prior.failed == {"b"}
    assert out.forget(frozenset({"b"})) == 1
    assert path.read_text(encoding="utf-8").splitlines() == [
        '{"id": "a", "error": {}}', "not a record", '{"id": "a", "result": {}}',
        '{"id": "c", "result": {}}',
    ]  # fmt: skip
