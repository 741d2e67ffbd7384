"""Where the web UI's saved settings are kept: `$SLEUTH_HOME/ui.json`, or the database of the
database URL (`ui_pg.py`). The application chooses (`Sleuth.ui_text`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol


class SavedText(Protocol):
    """Where the settings' JSON text is kept."""

    def read(self) -> str | None: ...

    def write(self, text: str) -> None: ...


class FileText:
    """`$SLEUTH_HOME/ui.json`, written whole (a reader never sees half) and owner-only."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> str | None:
        try:
            return self.path.read_text("utf-8")
        except OSError:
            return None

    def write(self, text: str) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, self.path)


def saved_text(home: Path, url: str | None) -> SavedText:
    """The database's when there is one (a replica keeps nothing of its own), else the
    home's file."""
    if url is None:
        return FileText(home / "ui.json")
    from .ui_pg import PgSavedText

    return PgSavedText(url)
