"""`--include` reads only regular files, within size caps, never following a link out of a named
directory, and never blocks on a FIFO (issue 12, item 6)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sleuth.disk.read import read_regular
from sleuth.errors import UsageError
from sleuth.search import local
from tests.cli.helpers import run

NOTE = "# Retention\n\nAudit logs are kept for ninety days in the archive tier.\n"


def test_a_fifo_is_refused_at_once_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "notes.md"
    os.mkfifo(fifo)  # nobody ever writes: opening it for reading would block forever
    with pytest.raises(UsageError, match="named pipe"):
        local.read_files(local.expand_paths((str(fifo),)))


def test_a_link_to_dev_zero_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "endless.md"
    link.symlink_to("/dev/zero")
    with pytest.raises(UsageError, match="a device, not a regular file"):
        local.read_files(local.expand_paths((str(link),)))


def test_a_directory_named_as_a_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="a directory"):
        read_regular(tmp_path, 1000, "--include")


def test_a_file_over_the_cap_is_refused_before_it_is_read(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    with big.open("wb") as handle:
        handle.truncate(local.MAX_FILE_BYTES + 1)  # sparse: costs no disk
    with pytest.raises(UsageError, match="larger than 20 MB"):
        local.read_files(local.expand_paths((str(big),)))


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
    files = local.expand_paths((str(tree),))
    assert files == [(tree / "kept.md").resolve()]  # the inner link is the same file
    pages = local.read_files(files)
    assert [p.title for p in pages] == ["Retention"]


def test_together_the_files_are_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local, "MAX_TOTAL_BYTES", 100)
    for name in ("a.md", "b.md"):
        (tmp_path / name).write_text(NOTE)
    with pytest.raises(UsageError, match="include fewer"):
        local.read_files(local.expand_paths((str(tmp_path),)))


@pytest.mark.timeout(60)
def test_the_cli_names_the_fifo_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "notes.md"
    os.mkfifo(fifo)
    code, out, err = run(["ask", "retention", "--search=none", f"--include={fifo}"], capsys)
    assert code == 1 and out == ""
    assert err.strip().count("\n") == 0 and "named pipe" in err and "Traceback" not in err


def test_an_included_html_file_is_parsed_in_the_sandbox(tmp_path: Path) -> None:
    page = tmp_path / "policy.html"
    page.write_text(
        "<html><head><title>Policy</title></head><body><main><p>"
        + "Refunds are issued within fourteen days of a request. " * 3
        + "</p></main></body></html>"
    )
    [read] = local.read_files(local.expand_paths((str(page),)))
    assert read.title == "Policy" and "fourteen days" in read.text
    assert read.content_type == "text/html"
