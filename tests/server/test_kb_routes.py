"""An organization's knowledge base over the API (issue 15, item 5): upload files (typed by
content), list and remove them, research with `kb`, and no organization sees another's."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
pytest.importorskip("docx", reason="the knowledge-base tests write DOCX files")
from pathlib import Path

import httpx

from tests.kb.docs import write_docx, write_pdf
from tests.server.harness import serving
from tests.testweb.server import TestWeb

PRICE_Q = "What does the Quasar plan cost per month?"
BOIL_Q = "At what temperature does glorbium boil?"


def upload(api: str, org: str, key: str, path: Path, kb: str = "default") -> httpx.Response:
    files = {"file": (path.name, path.read_bytes(), "application/octet-stream")}
    return httpx.post(
        f"{api}/orgs/{org}/kb/files", files=files, data={"kb": kb}, headers={"X-API-Key": key}
    )


def test_upload_list_research_and_remove(testweb_env: TestWeb, tmp_path: Path) -> None:
    with serving() as served:
        key = served.key("a-corp")
        head = {"X-API-Key": key}
        added = upload(served.api, "a-corp", key, write_docx(tmp_path / "plans.docx"), "sales")
        assert added.status_code == 201, added.text
        assert added.json()["path"] == "upload/plans.docx" and added.json()["kind"] == "docx"
        pdf = upload(served.api, "a-corp", key, write_pdf(tmp_path / "notes.pdf"), "sales")
        assert pdf.json()["sections"] == 3
        listed = httpx.get(f"{served.api}/orgs/a-corp/kb/files?kb=sales", headers=head).json()
        assert {d["path"] for d in listed["documents"]} == {"upload/plans.docx", "upload/notes.pdf"}
        asked = httpx.post(
            f"{served.api}/orgs/a-corp/research",
            json={"query": BOIL_Q, "kb": "sales"},
            headers=head,
        )
        assert asked.status_code == 200, asked.text
        cited = [c for c in asked.json()["citations"] if "notes.pdf" in c["url"]]
        assert cited and cited[0].get("location") == "p. 3"
        assert "412" in asked.json()["answer"]
        gone = httpx.delete(f"{served.api}/orgs/a-corp/kb/files/upload/notes.pdf?kb=sales",
                            headers=head)  # fmt: skip
        assert gone.status_code == 204
        left = httpx.get(f"{served.api}/orgs/a-corp/kb/files?kb=sales", headers=head).json()
        assert [d["path"] for d in left["documents"]] == ["upload/plans.docx"]
        bases = httpx.get(f"{served.api}/orgs/a-corp/kb", headers=head).json()
        assert [(b["name"], b["documents"]) for b in bases] == [("sales", 1)]


def test_one_org_never_sees_another_orgs_knowledge_base(
    testweb_env: TestWeb, tmp_path: Path
) -> None:
    with serving() as served:
        a, b = served.key("a-corp"), served.key("b-corp")
        assert upload(served.api, "a-corp", a, write_docx(tmp_path / "plans.docx")).is_success
        hb = {"X-API-Key": b}
        assert httpx.get(f"{served.api}/orgs/a-corp/kb/files", headers=hb).status_code == 404
        own = httpx.get(f"{served.api}/orgs/b-corp/kb/files", headers=hb).json()
        assert own["documents"] == []
        gone = httpx.delete(f"{served.api}/orgs/b-corp/kb/files/upload/plans.docx", headers=hb)
        assert gone.status_code == 404
        asked = httpx.post(
            f"{served.api}/orgs/b-corp/research", json={"query": PRICE_Q, "kb": "default"},
            headers=hb,
        )  # fmt: skip
        assert asked.status_code == 404 and asked.json()["code"] == "NOT_FOUND"
        still = httpx.get(f"{served.api}/orgs/a-corp/kb/files", headers={"X-API-Key": a}).json()
        assert [d["path"] for d in still["documents"]] == ["upload/plans.docx"]


def test_bad_uploads_are_clear_errors(testweb_env: TestWeb, tmp_path: Path) -> None:
    with serving() as served:
        key = served.key("a-corp")
        empty = tmp_path / "empty.txt"
        empty.write_bytes(b"")
        got = upload(served.api, "a-corp", key, empty)
        assert got.status_code == 422 and got.json()["code"] == "UNREADABLE_FILE"
        lying = tmp_path / "report.docx"
        lying.write_bytes(write_pdf(tmp_path / "real.pdf").read_bytes())
        got = upload(served.api, "a-corp", key, lying)
        assert got.status_code == 422 and "PDF" in got.json()["error"]
        big = tmp_path / "big.txt"
        big.write_bytes(b"a" * 21_000_000)
        got = upload(served.api, "a-corp", key, big)
        assert got.status_code == 413 and got.json()["code"] == "PAYLOAD_TOO_LARGE"
        bad_name = httpx.get(f"{served.api}/orgs/a-corp/kb/files?kb=../etc",
                             headers={"X-API-Key": key})  # fmt: skip
        assert bad_name.status_code == 400
