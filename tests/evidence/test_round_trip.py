"""The must-show round trip: a real run on the test web, `sleuth export --format=pack`, then
`sleuth verify` in another process with an empty SLEUTH_HOME and no proxy: it passes, opening
no connection and no session store, and its verdicts are the run's own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sleuth.evidence.check import checked_text
from sleuth.store import SessionStore, sessions_db_path
from tests.cli.helpers import run
from tests.testweb.server import TestWeb

Q = "How long does Example Cloud keep audit logs by default?"


def test_export_then_verify_offline_passes_with_the_runs_own_verdicts(
    testweb_env: TestWeb, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["ask", Q, "--search=searxng", "--search-fallback=none", "--json"], capsys)
    assert code == 0, err
    session = json.loads(out)["session_id"]
    assert run(["keys", "signing", "create"], capsys)[0] == 0
    key_id = json.loads(run(["keys", "signing", "show", "--json"], capsys)[1])["key_id"]
    pack = tmp_path / "evidence.zip"
    code, out, err = run(["export", session, "--format=pack", f"--out={pack}"], capsys)
    assert code == 0 and out.strip() == str(pack) and f"signed by {key_id}" in err

    testweb_env.reset()  # forget the run's hits: verify must add none
    elsewhere = tmp_path / "no-home"
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env["SLEUTH_HOME"] = str(elsewhere)
    done = subprocess.run(
        [sys.executable, "-m", "sleuth.cli", "verify", str(pack), "--key", key_id, "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] and report["signature"] == {
        "state": "valid",
        "key_id": key_id,
        "pinned": True,
    }
    assert testweb_env.hits == [] and not elsewhere.exists()

    record = SessionStore(sessions_db_path()).get(session)
    verification = record.result.verification
    assert len(report["sentences"]) == verification.checked > 0
    assert sum(s["supported"] for s in report["sentences"]) == verification.supported
    cited = {c.number for c in record.result.citations}
    assert {n for s in report["sentences"] for n in s["numbers"]} == cited
    assert report["checker"]["min_recall"] == 0.4 and report["checker"]["min_recall_recorded"]
    assert checked_text(record.result.answer or "").strip()
