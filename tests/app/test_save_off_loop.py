"""A finished run is saved off the event loop: in a server, every other request waits while
the loop is held, and a save writes the whole run and syncs it to disk."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from sleuth.app.application import Sleuth
from sleuth.settings import Settings
from sleuth.store.records import SessionRecord


async def test_a_run_is_saved_while_the_event_loop_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = tmp_path / "note.md"
    note.write_text("# Retention\n\nAudit logs are kept for 90 days by default.\n")
    saving, released = threading.Event(), threading.Event()
    async with Sleuth(Settings.from_env()) as app:
        store = app.sessions
        original = store.save

        def held_save(record: SessionRecord) -> str:
            saving.set()
            assert released.wait(5), "the event loop stood still while the run was saved"
            return original(record)

        monkeypatch.setattr(store, "save", held_save)
        run = asyncio.create_task(
            app.ask("How long are audit logs kept?", search="none", include=(str(note),))
        )
        assert await asyncio.to_thread(saving.wait, 10)
        released.set()  # only a loop still running gets here while the save waits
        result = await run
    assert result.session_id is not None
    assert store.get(result.session_id).question == "How long are audit logs kept?"
