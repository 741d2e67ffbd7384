"""`sleuth serve` settles its heap once started: what is alive then (modules, routes, models)
leaves the garbage collector's reach, so a full collection under load walks only what requests
made (issue 26: pauses of ~135 ms became ~15 ms). A process hosting other apps is left alone."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")

from fastapi.testclient import TestClient

from sleuth.server.app import create_app, settle_heap


def test_settling_freezes_what_is_alive() -> None:
    gc.unfreeze()
    kept = [object() for _ in range(10)]
    try:
        settle_heap()
        assert gc.get_freeze_count() >= len(kept)
    finally:
        gc.unfreeze()


def test_only_an_app_asked_to_settle_freezes_the_heap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLEUTH_HOME", str(tmp_path))
    gc.unfreeze()
    with TestClient(create_app()):  # its lifespan has run
        assert gc.get_freeze_count() == 0
    try:
        with TestClient(create_app(settle=True)):
            assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
