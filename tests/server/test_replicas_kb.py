"""Issue 27, item 2: two `sleuth serve` replicas, each with its own SLEUTH_HOME, on one
PostgreSQL database. A file uploaded through one is listed and cited through the other (it
was a 404 there while each replica kept kb.db in its home), one org's files stay invisible to
another, and the UI's saved settings saved through one are what the other shows and uses.
Nothing of it is written to either replica's home."""

from __future__ import annotations

from contextlib import closing

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
pytest.importorskip("psycopg", reason="needs the postgres extra: pip install -e '.[postgres]'")

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx

from tests.cli.helpers import run
from tests.server.ui.browser import Server, sleuth_serve
from tests.testweb.server import TestWeb

PASSWORD = "team-password-1"
NOTE = (
    "# Glorbium handbook\n\nGlorbium boils at 412 kelvin under standard pressure, "
    "as the field station measured in the spring survey.\n"
)
QUESTION = "At what temperature does glorbium boil?"


@pytest.fixture
def replicas(
    postgres_db: str, testweb_env: TestWeb, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[list[Server]]:
    monkeypatch.setenv("SLEUTH_DATABASE_URL", postgres_db)
    env = {"SLEUTH_ACCESS_PASSWORD": PASSWORD}
    flags = ("--search=searxng", "--search-fallback=none", "--browser=never")
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    with ExitStack() as stack:
        yield [
            stack.enter_context(sleuth_serve(tmp_path / name / "home", *flags, env=env))
            for name in ("a", "b")
        ]


def _key(capsys: pytest.CaptureFixture[str], org: str) -> dict[str, str]:
    code, key, err = run(["keys", "create", "--org", org], capsys)
    assert code == 0, err
    return {"X-API-Key": key.strip()}


def test_a_file_uploaded_through_one_replica_is_listed_and_cited_through_the_other(
    replicas: list[Server], capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = replicas
    acme, other = _key(capsys, "acme"), _key(capsys, "other")
    uploaded = httpx.post(
        f"{a.base}/api/orgs/acme/kb/files", headers=acme, data={"kb": "team"},
        files={"file": ("handbook.md", NOTE.encode())}, timeout=60,
    )  # fmt: skip
    assert uploaded.status_code == 201, uploaded.text
    listed = httpx.get(f"{b.base}/api/orgs/acme/kb/files", params={"kb": "team"}, headers=acme)
    assert listed.status_code == 200, listed.text
    assert [d["path"] for d in listed.json()["documents"]] == ["upload/handbook.md"]
    bases = httpx.get(f"{b.base}/api/orgs/acme/kb", headers=acme).json()
    assert [(k["name"], k["documents"]) for k in bases] == [("team", 1)]
    research = httpx.post(
        f"{b.base}/api/orgs/acme/research", headers=acme,
        json={"query": QUESTION, "kb": "team"}, timeout=120,
    )  # fmt: skip
    assert research.status_code == 200, research.text
    cited = [c["url"] for c in research.json()["citations"]]
    assert "file:///upload/handbook.md" in cited, cited
    assert httpx.get(f"{b.base}/api/orgs/other/kb", headers=other).json() == []
    refused = httpx.post(
        f"{b.base}/api/orgs/other/research", headers=other,
        json={"query": QUESTION, "kb": "team"}, timeout=60,
    )  # fmt: skip
    assert refused.status_code == 404  # another org's knowledge base is not there for it
    for replica in replicas:
        assert not (replica.home / "kb.db").exists()


def test_settings_saved_through_one_replica_are_the_others(replicas: list[Server]) -> None:
    a, b = replicas
    with closing(_signed_in(a)) as ui_a, closing(_signed_in(b)) as ui_b:
        saved = ui_a.post(
            "/settings", data={"model": "team-model-7", "api_key": "sk-team-secret-4321"}
        )
        assert saved.status_code == 303, saved.text
        page = ui_b.get("/settings").text
    assert "team-model-7" in page and "…4321" in page and "sk-team-secret" not in page
    for replica in replicas:
        assert not (replica.home / "ui.json").exists()


def _signed_in(replica: Server) -> httpx.Client:
    """A browser signed in to one replica (a login session is the replica's own)."""
    client = httpx.Client(base_url=replica.base, timeout=60)
    login = client.post("/login", data={"password": PASSWORD, "next": "/"})
    assert login.status_code == 303, login.text
    return client
