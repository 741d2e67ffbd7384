"""An upload's name is the last part of what the client sent, and names that are no file name
are refused before anything is stored (issue 24: `.` and `..` were stored as documents)."""

from __future__ import annotations

import pytest

from sleuth.errors import UnreadableFile
from sleuth.kb import upload_name


@pytest.mark.parametrize("name", ["", ".", "..", "dir/..", "a\x00b.md", "two\nlines", "x\u202etxt"])
def test_names_that_are_no_file_name_are_refused(name: str) -> None:
    with pytest.raises(UnreadableFile, match="not a usable file name"):
        upload_name(name)


@pytest.mark.parametrize(
    ("name", "kept"),
    [("../../etc/passwd", "passwd"), ("C:\\Users\\me\\notes.md", "notes.md"), ("...", "...")],
)
def test_a_name_is_its_last_part(name: str, kept: str) -> None:
    assert upload_name(name) == kept
