"""`sleuth keys create|ls|revoke`, `sleuth serve`'s refusal to serve openly off loopback, and
the CLI's start-up never importing the server stack."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest

from sleuth.store.sessions import SessionStore, sessions_db_path
from tests.cli.helpers import run
from tests.store.factories import make_record


def test_keys_create_ls_revoke(capsys: pytest.CaptureFixture[str]) -> None:
    code, key, err = run(["keys", "create", "--org", "acme", "--scopes", "research"], capsys)
    assert code == 0 and key.startswith("slk_") and "shown once" in err
    code, out, _ = run(["keys", "create", "--org", "globex", "--json"], capsys)
    made = json.loads(out)
    assert code == 0 and made["org"] == "globex" and made["key"].startswith("slk_")
    code, out, _ = run(["keys", "ls", "--json"], capsys)
    rows = json.loads(out)
    assert [r["org"] for r in rows] == ["acme", "globex"]
    assert key.strip() not in out and made["key"] not in out  # never the keys themselves
    code, out, _ = run(["keys", "ls", "--org", "acme"], capsys)
    assert code == 0 and "research" in out and "active" in out and "globex" not in out
    acme_id = rows[0]["id"]
    code, out, _ = run(["keys", "revoke", acme_id], capsys)
    assert code == 0 and f"revoked {acme_id} (acme)" in out
    code, out, _ = run(["keys", "ls", "--org", "acme"], capsys)
    assert "revoked" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["keys", "create", "--org", "bad org!"], "--org takes a name"),
        (["keys", "create", "--org", "acme", "--scopes", "research,admin"], "unknown scope"),
        (["keys", "revoke", "nope"], "no key 'nope'"),
    ],
)
def test_keys_errors_are_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(args, capsys)
    assert code == 1 and message in err and "Traceback" not in err


@pytest.mark.skipif(
    importlib.util.find_spec("fastapi") is None, reason="sleuth serve needs sleuth[server]"
)
def test_serve_refuses_an_open_non_loopback_host(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["serve", "--host", "0.0.0.0", "--port", "9"], capsys)
    assert code == 1 and "no API keys exist" in err and "SLEUTH_ACCESS_PASSWORD" in err
    code, _, err = run(["serve", "--no-auth", "--host", "0.0.0.0", "--port", "9"], capsys)
    assert code == 1 and "--no-auth was given" in err  # open on purpose: still loopback only


def test_the_cli_does_not_import_the_server_stack() -> None:
    probe = (
        "import sys, sleuth.cli.main; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'fastapi', 'uvicorn', 'starlette', 'prometheus_client', 'pydantic'}))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_sessions_ls_org_lists_only_that_orgs_runs(capsys: pytest.CaptureFixture[str]) -> None:
    store = SessionStore(sessions_db_path())
    for org, question in (("acme", "q one"), ("globex", "q two"), (None, "q local")):
        store.save(make_record(question=question, org=org))
    code, out, _ = run(["sessions", "ls", "--org", "acme"], capsys)
    assert code == 0 and "q one" in out and "q two" not in out and "q local" not in out
    code, out, _ = run(["sessions", "ls", "--json"], capsys)
    assert {r["org"] for r in json.loads(out)} == {"acme", "globex", None}


@pytest.mark.parametrize("damage", [b"garbage, not a database" * 100, b"SQLite format 3\x00\x10"])
def test_a_damaged_service_database_is_refused_in_one_line_and_left_untouched(
    damage: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    """It holds the keys and quotas: a fresh one would silently revoke every key, so unlike the
    session store it is not moved aside and replaced."""
    from sleuth.settings import sleuth_home

    path = sleuth_home() / "service.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(damage)
    code, _, err = run(["keys", "ls"], capsys)
    assert code == 1 and "Traceback" not in err and len(err.strip().splitlines()) <= 2
    assert f"{path} is damaged" in err and "left untouched" in err
    assert path.read_bytes() == damage
    assert not list(path.parent.glob("service.db.corrupt-*"))
