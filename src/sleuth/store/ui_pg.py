"""The web UI's saved settings in PostgreSQL (`SLEUTH_DATABASE_URL`): what the Settings page
saves through one replica, every replica uses. Without a database URL they are the owner-only
file `$SLEUTH_HOME/ui.json` (`server/ui/saved.py`); here, one row holding the same JSON text,
as protected as the database that holds the keys and sessions beside it."""

from __future__ import annotations

from . import postgres

COMPONENT = "ui"
NAME = "ui"  # the row: the one set of settings the UI has

# Append only: a database at version N runs STEPS[N:] (see `postgres.migrate`).
STEPS: tuple[str, ...] = (
    """CREATE TABLE ui_settings (name TEXT PRIMARY KEY, body TEXT NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now())""",
)


class PgSavedText:
    """One named JSON text in the database: `read` (None when never saved) and `write`."""

    def __init__(self, url: str, name: str = NAME) -> None:
        self.url = url
        self.name = name
        with postgres.connection(url) as conn:
            postgres.migrate(conn, COMPONENT, STEPS, url)

    def read(self) -> str | None:
        with postgres.connection(self.url) as conn:
            row = conn.execute(
                "SELECT body FROM ui_settings WHERE name = %s", (self.name,)
            ).fetchone()
        return str(row[0]) if row else None

    def write(self, text: str) -> None:
        with postgres.connection(self.url) as conn:
            conn.execute(
                "INSERT INTO ui_settings (name, body) VALUES (%s, %s) ON CONFLICT (name)"
                " DO UPDATE SET body = excluded.body, updated_at = now()",
                (self.name, text),
            )
