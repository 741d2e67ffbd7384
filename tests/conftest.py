"""Test-session guards shared by every test.

No test may reach the internet: sockets may only connect to loopback, and name lookups only
resolve loopback names. A test that tries anything else fails loudly instead of hanging.
Subprocesses get the same guard through `tests/netguard/sitecustomize.py` on PYTHONPATH.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

pytest_plugins = ["tests.testweb.fixtures", "tests.postgres", "tests.buckets"]

GUARD_DIR = Path(__file__).parent / "netguard"
sys.path.insert(0, str(GUARD_DIR))
from sitecustomize import install  # noqa: E402  (the same guard subprocesses get)

install()


def pytest_runtest_setup(item: pytest.Item) -> None:
    """`@pytest.mark.extra("browser")`: skip, saying what to install, when the extra is absent,
    so the README's `make test` passes on a fresh clone with only the `dev` extra."""
    from sleuth.extras import install_hint, missing

    for mark in item.iter_markers("extra"):
        name = str(mark.args[0])
        absent = missing(name)
        if absent:
            pytest.skip(
                f"needs the {name} extra ({', '.join(absent)} not installed): {install_hint(name)}"
            )


@pytest.fixture(autouse=True)
def sleuth_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own SLEUTH_HOME and a clean environment of SLEUTH_*/LLM variables."""

    for name in list(os.environ):
        if (name.startswith("SLEUTH_") and name != "SLEUTH_UPDATE_SNAPSHOTS") or name in {
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "OPENAI_BASE_URL",
            "ANTHROPIC_BASE_URL",
            "GEMINI_API_KEY",
            "GOOGLE_API_KEY",
            "GOOGLE_GEMINI_BASE_URL",
            "AZURE_OPENAI_API_KEY",
            "AZURE_OPENAI_ENDPOINT",
            "AZURE_OPENAI_AD_TOKEN",
            "OPENAI_API_VERSION",
            "HTTP_PROXY",
            "HTTPS_PROXY",
            "ALL_PROXY",
            "NO_PROXY",
            "http_proxy",
            "https_proxy",
            "all_proxy",
            "no_proxy",
        }:
            monkeypatch.delenv(name, raising=False)
    home = tmp_path / "sleuth-home"
    monkeypatch.setenv("SLEUTH_HOME", str(home))
    # Subprocesses (the real `sleuth` entry point) load the same network guard at start-up.
    monkeypatch.setenv(
        "PYTHONPATH",
        os.pathsep.join([str(GUARD_DIR), *filter(None, [os.environ.get("PYTHONPATH")])]),
    )
    return home
