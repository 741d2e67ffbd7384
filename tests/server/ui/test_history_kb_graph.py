"""The History page, the Knowledge base tab and the graph panel over real HTTP (issue 17 items
5-7): search, tags, delete, the diff, continue and re-run; uploads with per-file errors, the
document list and the run's picker; the graph of an answer, escaped, and other orgs' runs
never shown."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

pytest.importorskip("jinja2", reason="the web UI needs sleuth[server]")
pytest.importorskip("docx", reason="the knowledge-base tests write DOCX files")
import httpx

from sleuth.server.config import ServerConfig
from sleuth.store import SessionStore, sessions_db_path
from sleuth.store.records import SessionRecord
from tests.graph.results import CLOUD, RIVAL, result, source
from tests.kb.docs import write_docx
from tests.server.harness import serving
from tests.testweb.server import TestWeb

HTML = {"Accept": "text/html"}
HOSTILE = 'Evil Corp "><script>alert(1)</script> bought Example Cloud in 2024.'


def save(question: str, *sources_: object, tags: tuple[str, ...] = (), **kw: object) -> str:
    record = SessionRecord.new(question, result(*sources_, query=question, answer="A [1]."),  # type: ignore[arg-type]
                               tags=tags, **kw)  # type: ignore[arg-type]  # fmt: skip
    return SessionStore(sessions_db_path()).save(record)


def open_ui() -> object:
    return serving(ServerConfig(open_access=True))


def test_history_lists_searches_tags_deletes_and_keeps_other_orgs_out() -> None:
    cloud = save("How long are audit logs kept?", source(1, CLOUD), tags=("audit",))
    rival = save("Who sells to banks in Frankfurt?", source(1, RIVAL))
    theirs = save("Acme secret plans", source(1, CLOUD), org="acme")
    with open_ui() as served, httpx.Client(base_url=served.base) as client:  # type: ignore[attr-defined]
        page = client.get("/history", headers=HTML).text
        assert cloud in page and rival in page and theirs not in page
        assert 'aria-current="page"' in page and "#audit (1)" in page
        found = client.get("/history", params={"q": "frankfurt BANKS"}).text  # a source's text
        assert rival in found and cloud not in found
        assert cloud in client.get("/history", params={"tag": "audit"}).text
        assert rival not in client.get("/history", params={"tag": "audit"}).text
        tagged = client.post(f"/history/{rival}/tags?q=banks", data={"tags": "Banks, #EU"})
        assert (
            tagged.status_code == 303
            and tagged.headers["location"] == "/history?q=banks&done=tagged"
        )
        assert SessionStore(sessions_db_path()).get(rival).tags == ("banks", "eu")
        client.post(f"/history/{rival}/untag", data={"tag": "eu"})
        assert SessionStore(sessions_db_path()).get(rival).tags == ("banks",)
        assert client.post(f"/history/{rival}/tags", data={"tags": " , "}).status_code == 400
        assert client.post(f"/history/{theirs}/delete").status_code == 404  # not the UI's org
        gone = client.post(f"/history/{cloud}/delete")
        assert gone.status_code == 303 and "done=deleted" in gone.headers["location"]
        after = client.get(gone.headers["location"]).text
        assert cloud not in after and "The run was deleted." in after
        assert SessionStore(sessions_db_path()).get(theirs).org == "acme"  # untouched


def test_the_diff_of_two_runs_and_its_errors() -> None:
    a = save(
        "How long are audit logs kept?", source(1, CLOUD), now=datetime(2026, 5, 1, tzinfo=UTC)
    )
    b = save("How long are audit logs kept?", source(1, CLOUD), source(2, RIVAL),
             now=datetime(2026, 6, 1, tzinfo=UTC))  # fmt: skip
    with open_ui() as served, httpx.Client(base_url=served.base) as client:  # type: ignore[attr-defined]
        page = client.get("/history/diff", params=[("pick", b), ("pick", a)])
        assert page.status_code == 200
        text = page.text
        assert text.index(f"/runs/{a}") < text.index(f"/runs/{b}")  # the older one is A
        assert "https://site2.example/page" in text and 'class="added"' in text
        one = client.get("/history/diff", params={"pick": a})
        assert one.status_code == 400 and "pick exactly two runs" in one.text
        unknown = client.get("/history/diff", params=[("pick", a), ("pick", "1999-01-01")])
        assert unknown.status_code == 400 and "no session matches" in unknown.text


def test_continue_opens_a_steered_round_holding_the_past_runs_sources() -> None:
    past = save("How long are audit logs kept?", source(1, CLOUD), source(2, RIVAL))
    with open_ui() as served, httpx.Client(base_url=served.base) as client:  # type: ignore[attr-defined]
        opened = client.get(f"/runs/{past}", headers=HTML)  # a plain run opens at its answer
        assert opened.status_code == 200 and "data-graph=" in opened.text
        went = client.post(f"/history/{past}/continue")
        assert went.status_code == 303
        new_id = went.headers["location"].rsplit("/", 1)[1]
        record = SessionStore(sessions_db_path()).get(new_id)
        assert record.parent_id == past and record.options["steering"]["stage"] == "explore"
        assert len(record.result.sources) == 2
        page = client.get(went.headers["location"], headers=HTML).text
        assert 'name="suggestions"' in page
        history = client.get("/history").text  # one thread: the continuation, the past run under it
        assert (
            history.index(new_id) < history.index(past) and "Earlier runs in this thread" in history
        )


def test_rerun_is_a_live_job_ending_at_the_new_run(testweb_env: TestWeb) -> None:
    past = save("How long does Example Cloud keep audit logs by default?", source(1, CLOUD))
    with open_ui() as served, httpx.Client(base_url=served.base, timeout=60) as client:  # type: ignore[attr-defined]
        job = client.post(f"/history/{past}/rerun", headers={"Accept": "application/json"}).json()
        events: list[dict[str, object]] = []
        with client.stream("GET", job["events"]) as stream:
            for line in stream.iter_lines():
                if line.startswith("data:"):
                    events.append(json.loads(line[5:]))
                    if events[-1]["type"] in ("stage", "failed", "cancelled"):
                        break
        assert events[-1]["type"] == "stage", events[-1]
        assert any(e["type"] == "search.done" for e in events)
        new_id = str(events[-1]["url"]).rsplit("/", 1)[1]
        assert SessionStore(sessions_db_path()).get(new_id).parent_id == past
        assert "http://docs.examplecloud.com" in client.get(str(events[-1]["url"])).text


def test_the_graph_panel_escapes_page_text_and_links_edges_to_sources() -> None:
    run = save("Who bought Example Cloud?", source(1, HOSTILE), source(2, RIVAL))
    theirs = save("Acme", source(1, CLOUD), org="acme")
    with open_ui() as served, httpx.Client(base_url=served.base) as client:  # type: ignore[attr-defined]
        panel = client.get(f"/runs/{run}/graph")
        assert panel.status_code == 200 and "<svg" in panel.text
        assert 'href="#src-1"' in panel.text and 'href="#src-2"' in panel.text
        assert "<script" not in panel.text and "&lt;script&gt;" in panel.text
        assert "Names that appear together" in panel.text
        svg = client.get(f"/runs/{run}/graph.svg")
        assert (
            svg.headers["content-type"] == "image/svg+xml" and "https://site1.example" in svg.text
        )
        assert client.get(f"/runs/{run}/graph.mmd").text.startswith("flowchart LR")
        assert json.loads(client.get(f"/runs/{run}/graph.json").text)["edges"]
        assert client.get(f"/runs/{run}/graph.png").status_code == 404
        assert client.get(f"/runs/{theirs}/graph").status_code == 404


def test_knowledge_base_upload_errors_list_remove_and_the_runs_picker(tmp_path: Path) -> None:
    docx_file = write_docx(tmp_path / "plans.docx")
    wants = {"Accept": "application/json"}
    with open_ui() as served, httpx.Client(base_url=served.base) as client:  # type: ignore[attr-defined]
        assert "No documents yet." in client.get("/kb").text
        added = client.post("/kb/files", data={"kb": "sales"}, headers=wants,
                            files={"file": ("plans.docx", docx_file.read_bytes())})  # fmt: skip
        assert added.status_code == 201, added.text
        got = added.json()
        assert (got["file"], got["path"], got["kind"], got["sections"]) == (
            "plans.docx", "upload/plans.docx", "docx", 3
        )  # fmt: skip
        bad = client.post("/kb/files", data={"kb": "sales"}, headers=wants,
                          files={"file": ("notes.pdf", b"this is not a PDF at all")})  # fmt: skip
        assert bad.status_code == 422 and bad.json()["file"] == "notes.pdf"
        assert "notes.pdf" in bad.json()["error"] and "PDF" in bad.json()["error"]
        badname = client.post("/kb/files", data={"kb": "../etc"}, headers=wants,
                              files={"file": ("a.txt", b"hello")})  # fmt: skip
        assert badname.status_code == 422 and "knowledge base name" in badname.json()["error"]
        listing = client.get("/kb", params={"kb": "sales"}).text
        assert "upload/plans.docx" in listing and "notes.pdf" not in listing
        api = client.get("/api/orgs/local/kb").json()  # the API's view of the same org 'local'
        assert [(b["name"], b["documents"]) for b in api] == [("sales", 1)]
        ask = client.get("/", params={"kb": "sales"}).text
        assert 'name="kb" value="sales"' in ask and " checked" in ask
        removed = client.post("/kb/remove", data={"kb": "sales", "path": "upload/plans.docx"})
        assert removed.status_code == 303
        assert "upload/plans.docx" not in client.get("/kb", params={"kb": "sales"}).text
        assert (
            client.post("/kb/remove", data={"kb": "sales", "path": "/etc/passwd"}).status_code
            == 400
        )
