"""The must-show, locally (SQLite): a watched question whose page changes between runs. The
first run asks it; a re-run of the unchanged page reports nothing; after the page changes the
next run reports the change, is saved as the child of the last run, and the webhook receives
exactly one call whose HMAC-SHA256 signature checks with the watch's secret."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sleuth.fetch.webhook import DELIVERY, EVENT, SIGNATURE, TIMESTAMP, signed_correctly
from sleuth.store import SessionStore, sessions_db_path
from sleuth.store.backend import watch_store
from tests.cli.helpers import run
from tests.testweb.server import TestWeb
from tests.watch import pages
from tests.watch.receiver import receiving


def test_a_changed_page_is_reported_and_the_webhook_gets_one_signed_call(
    testweb_env: TestWeb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SLEUTH_ALLOW_PRIVATE_NETWORK", "1")  # the receiver is on loopback
    pages.serve(testweb_env, pages.FIRST)
    with receiving() as hook:
        code, out, err = run(
            ["watch", "add", pages.QUESTION, "--every=1d", f"--webhook={hook.url}", "--json"],
            capsys,
        )
        assert code == 0, err
        added = json.loads(out)
        watch_id, secret = added["id"], added["secret"]

        code, out, err = run(["watch", "run", *pages.RUN], capsys)  # due at once: a first run
        assert code == 0, err
        assert f"{watch_id}" in out and " first" in out
        code, out, err = run(["watch", "run", watch_id, *pages.RUN], capsys)
        assert code == 0, err
        assert "unchanged" in out and "sources +0 -0 · claims +0 -0" in out
        assert hook.calls == []

        pages.serve(testweb_env, pages.CHANGED)
        code, out, err = run(["watch", "run", watch_id, *pages.RUN], capsys)
        assert code == 0, err
        assert "changed" in out and "webhook delivered: HTTP 200 (1 attempts)" in out
        assert len(hook.calls) == 1
        call = hook.calls[0]

    assert call.headers[EVENT] == "watch.changed" and call.headers[DELIVERY]
    assert signed_correctly(secret, call.headers[TIMESTAMP], call.body, call.headers[SIGNATURE])
    assert not signed_correctly(
        "another secret", call.headers[TIMESTAMP], call.body, call.headers[SIGNATURE]
    )
    body = json.loads(call.body)
    assert body["watch"]["id"] == watch_id and body["event"] == "watch.changed"
    assert any("decommissioned" in c for c in body["changes"]["claims_added"])
    assert any("31 metres" in c for c in body["changes"]["claims_removed"])
    assert body["changes"]["sources_added"] == [] == body["changes"]["sources_removed"]

    # The runs are a session chain: each re-run is the child of the run before it.
    code, out, _ = run(["watch", "show", watch_id, "--json"], capsys)
    runs = json.loads(out)["runs"]
    assert [r["status"] for r in runs] == ["changed", "unchanged", "first"]
    assert runs[0]["parent_id"] == runs[1]["session_id"]
    assert runs[1]["parent_id"] == runs[2]["session_id"]
    store = SessionStore(sessions_db_path())
    assert store.get(runs[0]["session_id"]).parent_id == runs[1]["session_id"]
    assert body["run"] == {
        "session_id": runs[0]["session_id"],
        "previous_session_id": runs[1]["session_id"],
        "ran_at": runs[0]["ran_at"],
    }


def test_a_private_webhook_is_refused_without_the_operator_allowance(
    testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(
        ["watch", "add", pages.QUESTION, "--webhook=http://127.0.0.1:9/hook"], capsys
    )
    assert code == 1 and "private or local address: 127.0.0.1" in err
    code, _, err = run(
        ["watch", "add", pages.QUESTION, "--webhook=http://169.254.169.254/"], capsys
    )
    assert code == 1 and "cloud metadata address" in err
    code, _, err = run(["watch", "add", pages.QUESTION, "--every=10s"], capsys)
    assert code == 1 and "at least 1 minute" in err


async def test_delivery_passes_the_guard_each_time(sleuth_home: Path) -> None:
    """A watch added while private networks were allowed does not reach one after the
    operator turned the allowance off: the guard runs at delivery, not only when adding."""
    from sleuth.fetch.webhook import Webhooks

    with receiving() as hook:
        refusing = Webhooks(allow_private=False, waits_s=())
        try:
            refused = await refusing.post(hook.url, b"{}", "s", "watch.changed")
        finally:
            await refusing.aclose()
        allowing = Webhooks(allow_private=True, waits_s=())
        try:
            sent = await allowing.post(hook.url, b"{}", "s", "watch.changed")
        finally:
            await allowing.aclose()
        assert not refused.ok and "refused: private or local address" in refused.detail
        assert sent.ok and len(hook.calls) == 1


def test_run_loop_runs_due_watches_and_stops_cleanly_on_sigterm(
    testweb_env: TestWeb, sleuth_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pages.serve(testweb_env, pages.FIRST)
    code, watch_id, err = run(["watch", "add", pages.QUESTION, "--every=1h"], capsys)
    assert code == 0, err
    store = watch_store(sleuth_home)
    command = [
        sys.executable,
        "-m",
        "sleuth.cli",
        "watch",
        "run",
        "--loop",
        "--interval=5",
        *pages.RUN,
    ]
    process = subprocess.Popen(
        command, env=dict(os.environ), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 60
        while store.get(watch_id.strip()).runs < 1 and time.monotonic() < deadline:
            time.sleep(0.2)
        process.send_signal(signal.SIGTERM)
        out, errors = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, errors
    assert f"{watch_id.strip()}" in out and " first" in out
    assert store.get(watch_id.strip()).last_status == "first"
