"""`sleuth keys org-model set|show|clear|reseal|secret-key`: the key comes from stdin (never a
flag) and is never printed; without a secret key nothing is stored; a rotation reseals."""

from __future__ import annotations

import io
import json

import pytest

from tests.cli.helpers import run

KEY = "sk-acme-own-4d5e6f708192"
SET = ["keys", "org-model", "set", "--org", "acme", "--provider", "anthropic",
       "--model", "claude-x", "--base-url", "https://llm.acme.example"]  # fmt: skip


def keyed(monkeypatch: pytest.MonkeyPatch, text: str = KEY + "\n") -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))


def test_set_show_clear_never_print_the_key(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, secret, _ = run(["keys", "org-model", "secret-key"], capsys)
    assert code == 0 and len(secret.strip()) == 44
    monkeypatch.setenv("SLEUTH_SECRET_KEY", secret.strip())
    keyed(monkeypatch)
    code, out, err = run([*SET, "--plan-model", "claude-small"], capsys)
    assert code == 0, err
    assert "acme  anthropic  claude-x  https://llm.acme.example  key set: yes" in out
    assert "plan claude-small" in out
    code, out, _ = run(["keys", "org-model", "show", "--json"], capsys)
    (row,) = json.loads(out)
    assert row["orgId"] == "acme" and row["key_set"] is True and row["plan_model"] == "claude-small"
    assert KEY not in out
    code, out, _ = run(["keys", "org-model", "show", "--org", "globex"], capsys)
    assert code == 0 and "globex  the server's model" in out
    new = run(["keys", "org-model", "secret-key"], capsys)[1].strip()
    monkeypatch.setenv("SLEUTH_SECRET_KEY", f"{new},{secret.strip()}")
    code, out, _ = run(["keys", "org-model", "reseal"], capsys)
    assert code == 0 and "resealed 1 model key(s)" in out
    code, out, _ = run(["keys", "org-model", "clear", "--org", "acme"], capsys)
    assert code == 0 and "acme  the server's model" in out
    code, _, err = run(["keys", "org-model", "clear", "--org", "acme"], capsys)
    assert code == 1 and "has no model of its own" in err


@pytest.mark.parametrize(
    ("extra", "env", "stdin", "message"),
    [
        ([], None, KEY, "SLEUTH_SECRET_KEY.*not set"),
        ([], "not-a-key", KEY, "Fernet keys"),
        ([], "ok", "", "no API key on stdin"),
        (["--base-url", "ftp://llm.acme.example"], "ok", KEY, "http:// or https://"),
        (["--org", "local"], "ok", KEY, "reserved"),
    ],
)
def test_set_refuses_what_it_cannot_keep(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    extra: list[str],
    env: str | None,
    stdin: str,
    message: str,
) -> None:
    import re

    if env == "ok":
        monkeypatch.setenv("SLEUTH_SECRET_KEY", run(["keys", "org-model", "secret-key"], capsys)[1])
    elif env is not None:
        monkeypatch.setenv("SLEUTH_SECRET_KEY", env)
    keyed(monkeypatch, stdin + "\n")
    code, _, err = run([*SET, *extra], capsys)
    assert code == 1 and re.search(message, err), err
    assert KEY not in err
    code, out, _ = run(["keys", "org-model", "show", "--json"], capsys)
    assert json.loads(out) == []
