"""`--include` (and `sleuth kb add`) read only regular files, within a size cap, never follow a
link out of a named directory, never block on a FIFO, and parse documents in the extraction
sandbox (issue 12, items 3 and 6)."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from sleuth.errors import UsageError
from sleuth.kb.ingest import find_files
from sleuth.search import local
from sleuth.settings import Settings
from tests.cli.helpers import run

NOTE = "# Retention\n\nAudit logs are kept for ninety days in the archive tier.\n"


def build(*paths: Path) -> local.LocalSearch:
    from sleuth.registry import BackendSettings, registries

    return local.build(BackendSettings(include=tuple(str(p) for p in paths)), registries())


@pytest.mark.timeout(60)
def test_a_fifo_is_skipped_at_once_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "notes.md"
    os.mkfifo(fifo)  # nobody ever writes: opening it for reading would block forever
    search = build(fifo)
    assert [reason for _, reason in search.skipped] == [
        "is a named pipe (FIFO), not a regular file"
    ]


def test_a_link_to_dev_zero_is_refused_without_reading_it(tmp_path: Path) -> None:
    link = tmp_path / "endless.md"
    link.symlink_to("/dev/zero")  # resolved, it has no supported type: refused before reading
    with pytest.raises(UsageError, match="/dev/zero"):
        build(link)


def test_links_out_of_a_directory_and_special_files_in_it_are_passed_over(
    tmp_path: Path,
) -> None:
    tree, outside = tmp_path / "notes", tmp_path / "private"
    tree.mkdir()
    outside.mkdir()
    (tree / "kept.md").write_text(NOTE)
    (tree / "inner-link.md").symlink_to(tree / "kept.md")
    (outside / "salary.md").write_text("# Salary\n\nThe director earns 250,000 a year.\n")
    (tree / "escape.md").symlink_to(outside / "salary.md")
    (tree / "zero.md").symlink_to("/dev/zero")
    os.mkfifo(tree / "pipe.md")
    found, _ = find_files([str(tree)])
    assert found == [(tree / "kept.md").resolve()]  # the inner link is the same file


@pytest.mark.timeout(60)
def test_the_cli_names_the_fifo_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "notes.md"
    os.mkfifo(fifo)
    code, out, err = run(["ask", "retention", "--search=none", f"--include={fifo}"], capsys)
    assert code == 3 and out == "" and "Traceback" not in err
    assert [line for line in err.splitlines() if "named pipe" in line]


def test_an_included_html_file_is_parsed_in_the_sandbox(tmp_path: Path) -> None:
    from sleuth.kb.convert import sandboxed_convert

    html = (
        "<html><head><title>Policy</title></head><body><main><p>"
        + "Refunds are issued within fourteen days of a request. " * 3
        + "</p></main></body></html>"
    )
    document = sandboxed_convert(html.encode(), "policy.html")
    assert document.title == "Policy"
    assert "fourteen days" in " ".join(s.text for s in document.sections)


def test_an_included_pdf_bomb_costs_one_file_not_the_run(tmp_path: Path) -> None:
    # --include converted in process: this PDF (4 MB, inflating to 500 MB) aborted the whole
    # run inside PDFium (SIGABRT, no message). Run as a child with a memory ceiling, so a
    # regression fails this test instead of aborting the test session.
    from tests.faults.harness import run_limited
    from tests.testweb.bombs import pdf_bomb

    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "report.pdf").write_bytes(pdf_bomb(500 * 1024 * 1024))
    (folder / "retention.md").write_text(NOTE)
    env = {**os.environ, "SLEUTH_HOME": str(tmp_path / "home")}
    args = ["ask", "how long are audit logs kept", "--search=none", f"--include={folder}"]
    ran = run_limited(args, env, memory_mb=2048, kill_after_s=120)
    assert ran.code == 0 and not ran.killed, ran.err
    assert "ninety days" in ran.out
    said = [line for line in ran.err.splitlines() if "report.pdf" in line]
    assert len(said) == 1 and "ran out of memory" in said[0], ran.err


def test_a_missing_path_is_still_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        build(tmp_path / "nope.md")


def test_settings_default_is_no_include() -> None:
    assert Settings().include == ()


TRAVEL = "# Expenses\n\nMeals during travel are reimbursed up to $75 per day.\n"
ON_CALL = "# On-call\n\nThe primary on-call engineer receives a stipend of $450 per week.\n"
UNMATCHED = "what is the daily food allowance on trips"  # no word of it is in either file


def _files(tmp_path: Path, n: int = 2) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    for i, text in enumerate([TRAVEL, ON_CALL, NOTE][:n]):
        (folder / f"note{i}.md").write_text(text)
    return folder


def test_files_that_are_all_a_run_reads_are_read_whole_when_no_passage_matches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The user named the files: a question in other words than theirs is read against all of
    them, with a notice saying so, not ended with "search found no results"."""
    folder = _files(tmp_path)
    args = ["ask", UNMATCHED, "--search=none", f"--include={folder}", "--json", "--no-sessions"]
    code, out, err = run(args, capsys)
    assert code == 0, err
    assert "no passage matches the question's words; reading all 2 files (2 sections)" in err
    result = json.loads(out)
    assert sorted(s["title"] for s in result["sources"]) == ["Expenses", "On-call"]


def test_more_files_than_a_search_returns_still_find_no_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _files(tmp_path)
    for i in range(9):  # 11 files: more than the 10 results a search returns
        (folder / f"extra{i}.md").write_text(f"# Room {i}\n\nThe kettle is on stove {i}.\n")
    args = ["ask", UNMATCHED, "--search=none", f"--include={folder}"]
    code, _, err = run(args, capsys)
    assert code == 3 and "search found no results" in err and "reading" not in err


def test_beside_another_search_unmatched_files_are_not_read(tmp_path: Path) -> None:
    """Next to a web search, files that match nothing would be kept as sources of the web's
    answer: they are read whole only when they are all the run reads."""
    from sleuth.ports import SearchQuery
    from sleuth.registry import BackendSettings, registries

    folder = _files(tmp_path)
    beside = local.build(BackendSettings(include=(str(folder),)), registries())
    alone = local.build(
        BackendSettings(include=(str(folder),), extra={"include_alone": True}), registries()
    )
    assert asyncio.run(beside.search(SearchQuery(UNMATCHED, 10))) == []
    found = asyncio.run(alone.search(SearchQuery(UNMATCHED, 10)))
    assert [r.title for r in found] == ["Expenses", "On-call"]
    assert all(r.page is not None and r.url.startswith("file://") for r in found)
