"""`sleuth kb ...` and `sleuth ask --search=kb` through the real entry point (issue 15)."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import run
from tests.kb.docs import make_bad_files, make_folder
from tests.testweb.server import TestWeb

TABLE_Q = "How much does the Quasar plan cost per month?"
PAGE_Q = "At what temperature does glorbium boil?"


@pytest.fixture
def stored(backend: str | None, monkeypatch: pytest.MonkeyPatch) -> str | None:
    """The test runs on both stores: SLEUTH_HOME's kb.db, then SLEUTH_DATABASE_URL's
    PostgreSQL. Asked for before `folder`, so the files go where the commands look."""
    if backend is not None:
        monkeypatch.setenv("SLEUTH_DATABASE_URL", backend)
    return backend


@pytest.fixture
def folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """One file of each supported type plus four bad ones, added to the default KB."""
    make_folder(tmp_path / "docs")
    make_bad_files(tmp_path / "docs")
    code, out, err = run(["kb", "add", str(tmp_path / "docs")], capsys)
    assert code == 0, err
    assert "9 added" in out and "4 skipped" in out
    return tmp_path / "docs"


def ask(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, out, err = run(["ask", *args, "--json", "--no-sessions"], capsys)
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def cited(result: dict[str, Any], fragment: str) -> list[dict[str, Any]]:
    return [c for c in result["citations"] if fragment in c["url"]]


def test_bad_files_are_reported_and_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_bad_files(tmp_path / "bad")
    (tmp_path / "bad" / "ok.md").write_text("# Fine\n\nThis one is readable.\n")
    code, out, err = run(["kb", "add", str(tmp_path / "bad")], capsys)
    assert code == 0 and "1 added" in out and "4 skipped" in out
    lines = err.splitlines()
    for name, reason in (
        ("corrupt.pdf", "unreadable pdf"),
        ("locked.pdf", "encrypted pdf"),
        ("empty.txt", "empty file"),
        ("really-a-pdf.docx", "content is PDF, not DOCX"),
    ):
        assert any(name in line and reason in line for line in lines), (name, err)
    assert "Traceback" not in err


def test_table_question_cites_the_docx(
    stored: str | None, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = ask([TABLE_Q, "--search=kb"], capsys)
    docx = cited(result, "plans.docx")
    assert docx and docx[0]["url"].startswith("file://")
    assert docx[0]["location"] == "table 1, rows 2–3"
    assert "37 zorkmids" in result["answer"]
    assert all(c["url"].startswith("file://") for c in result["citations"])
    source = next(s for s in result["sources"] if s["number"] == docx[0]["number"])
    assert source["location"] == "table 1, rows 2–3"


def test_page_question_cites_page_3(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = ask([PAGE_Q, "--search=kb"], capsys)
    pdf = cited(result, "field-notes.pdf")
    assert pdf and pdf[0]["location"] == "p. 3"
    assert pdf[0]["url"] == (folder / "field-notes.pdf").resolve().as_uri() + "#page=3"
    assert "412 kelvin" in result["answer"]
    assert result["citations"][0]["number"] == 1


class Connections:
    """Every connect and name lookup made while installed (all address families but UNIX)."""

    def __init__(self) -> None:
        self.seen: list[Any] = []

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        connect, connect_ex, lookup = (
            socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo
        )  # fmt: skip

        def record(sock: socket.socket, address: Any) -> None:
            if sock.family != socket.AF_UNIX:
                self.seen.append(address)

        def guarded_connect(sock: socket.socket, address: Any) -> None:
            record(sock, address)
            connect(sock, address)

        def guarded_connect_ex(sock: socket.socket, address: Any) -> int:
            record(sock, address)
            return connect_ex(sock, address)

        def guarded_lookup(host: Any, *args: Any, **kwargs: Any) -> Any:
            self.seen.append(("getaddrinfo", host))
            return lookup(host, *args, **kwargs)

        monkeypatch.setattr(socket.socket, "connect", guarded_connect)
        monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
        monkeypatch.setattr(socket, "getaddrinfo", guarded_lookup)


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch) -> Connections:
    watcher = Connections()
    watcher.install(monkeypatch)
    return watcher


def test_search_kb_opens_no_network_connection(
    folder: Path,
    testweb_env: TestWeb,
    connections: Connections,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The proxy and SearXNG variables point at the test web: any web access would show there.
    result = ask([PAGE_Q, "--search=kb"], capsys)
    code, _, err = run(["ask", "qwertyuiop zxcvbnm", "--search=kb", "--no-sessions"], capsys)
    assert cited(result, "field-notes.pdf")
    # nothing matched: no web fallback either
    assert code == 3 and "search found no results" in err
    assert connections.seen == []
    assert testweb_env.hits == []


def test_the_watcher_sees_connections(
    testweb_env: TestWeb, connections: Connections, capsys: pytest.CaptureFixture[str]
) -> None:
    """The connection watcher is not blind: a web search is seen."""
    run(["ask", "audit logs retention", "--search=searxng", "--no-sessions"], capsys)
    assert connections.seen and testweb_env.hits


def test_multi_fans_out_to_kb_and_the_web(
    folder: Path, testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    result = ask([PAGE_Q, "--search=multi:kb,searxng"], capsys)
    assert result["sources"][0]["url"].startswith("file://")
    assert result["sources"][0]["location"] == "p. 3"
    assert testweb_env.searches  # the web was asked too


def test_include_is_a_one_off_knowledge_base(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_folder(tmp_path / "docs")
    make_bad_files(tmp_path / "docs")
    code, out, err = run(
        ["ask", TABLE_Q, "--search=none", f"--include={tmp_path / 'docs'}", "--json",
         "--no-sessions"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    result = json.loads(out)
    assert cited(result, "plans.docx")[0]["location"] == "table 1, rows 2–3"
    assert "skipped" in err and "locked.pdf" in err and "encrypted pdf" in err
    assert not (tmp_path / "sleuth-home" / "kb.db").exists()  # nothing was stored


def test_kb_commands(stored: str | None, folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["kb", "ls", "--json"], capsys)
    assert code == 0 and json.loads(out)[0]["documents"] == 9
    code, out, _ = run(["kb", "ls", "--kb", "default"], capsys)
    assert "plans.docx" in out and "docx" in out
    code, out, _ = run(["kb", "search", "Lisbon engineers", "--json"], capsys)
    hits = json.loads(out)
    assert hits[0]["location"] == "slide 2" and hits[0]["url"].endswith("review.pptx#slide=2")
    code, out, _ = run(["kb", "stats"], capsys)
    assert "9 documents" in out
    code, out, err = run(["kb", "rm", str(folder / "review.pptx")], capsys)
    assert code == 0 and "removed 1" in out
    code, out, _ = run(["kb", "search", "Lisbon engineers", "--json"], capsys)
    assert all("review.pptx" not in h["url"] for h in json.loads(out))
    code, _, err = run(["kb", "rm", str(folder / "review.pptx")], capsys)
    assert code == 1 and "not in knowledge base" in err
    code, out, _ = run(["kb", "rm", "--all"], capsys)
    assert code == 0 and "removed 8" in out
    home = Path(os.environ["SLEUTH_HOME"])  # with a database URL, nothing in the home
    assert (home / "kb.db").exists() == (stored is None)


def test_empty_or_unknown_kb_is_a_clear_error(
    stored: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["ask", "anything", "--search=kb:nope"], capsys)
    assert code == 1 and "knowledge base 'nope' is empty" in err
    code, _, err = run(["kb", "search", "x", "--kb", "bad name!"], capsys)
    assert code == 1 and "knowledge base name" in err


def test_watch_reindexes_changes(
    stored: str | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nThe first note mentions otters.\n")
    code, out, _ = run(["kb", "watch", str(folder), "--scans", "1"], capsys)
    assert code == 0 and "indexed" in out and "a.md" in out
    (folder / "a.md").unlink()
    (folder / "b.md").write_text("# B\n\nThe second note mentions beavers.\n")
    code, out, _ = run(["kb", "watch", str(folder), "--scans", "1"], capsys)
    assert "removed" in out and "a.md" in out and "indexed" in out and "b.md" in out
    code, out, _ = run(["kb", "search", "otters", "--json"], capsys)
    assert json.loads(out) == []
