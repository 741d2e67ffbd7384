"""`sleuth db migrate|check`: the storage schemas, on SQLite (under SLEUTH_HOME) or on the
PostgreSQL database of SLEUTH_DATABASE_URL. `check` changes nothing and exits 1 unless every
schema is the one this Sleuth writes; `migrate` brings every schema up to it (a newer one is
refused: upgrade Sleuth instead)."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import click

from ..errors import StoreError
from ..settings import database_url, sleuth_home
from .options import table_option
from .render import echo


@dataclass(frozen=True, slots=True)
class Row:
    component: str
    found: int
    known: int

    @property
    def status(self) -> str:
        if self.found == self.known:
            return "current"
        return "behind" if self.found < self.known else "newer"


def _sqlite_known() -> dict[str, tuple[Path, int]]:
    """Each SQLite schema's file (sessions.db in the sessions folder) and its known version."""
    from ..store import service_schema, sessions

    home = sleuth_home()
    return {
        "sessions": (_sessions_db(), len(sessions.MIGRATIONS)),
        "service": (home / "service.db", len(service_schema.MIGRATIONS)),
    }


def _sessions_db() -> Path:
    """sessions.db where runs save it: in sessions_dir when one is set."""
    from ..settings import folder
    from ..store.sessions import sessions_db_path
    from .configmap import store_settings

    return sessions_db_path(folder(store_settings().sessions_dir, sleuth_home()))


def _sqlite_rows() -> list[Row]:
    rows = []
    for component, (path, known) in _sqlite_known().items():
        found = 0
        if path.is_file():
            try:
                with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
                    found = int(conn.execute("PRAGMA user_version").fetchone()[0])
            except sqlite3.Error as exc:
                raise StoreError(f"{path}: {exc}") from exc
        rows.append(Row(component, found, known))
    return rows


def _pg_rows(url: str) -> list[Row]:
    from ..store import postgres
    from ..store.schemas import KNOWN

    with postgres.connection(url) as conn:
        states = postgres.versions(conn, KNOWN)
    return [Row(s.component, s.found, s.known) for s in states]


def _where() -> tuple[str, str | None]:
    url = database_url()
    if url is None:
        return f"sqlite {sleuth_home()}", None
    from ..store.postgres import redact

    return f"postgresql {redact(url)}", url


def _rows(url: str | None) -> list[Row]:
    return _sqlite_rows() if url is None else _pg_rows(url)


def _show(where: str, rows: list[Row], as_json: bool) -> None:
    if as_json:
        data = {"database": where, "schemas": [
            {"component": r.component, "version": r.found, "known": r.known, "status": r.status}
            for r in rows]}  # fmt: skip
        click.echo(json.dumps(data, indent=2))
        return
    echo(f"database: {where}")
    for r in rows:
        echo(f"  {r.component:<9} version {r.found} of {r.known}  {r.status}")


@click.group("db")
def db() -> None:
    """The storage schemas: SQLite under SLEUTH_HOME, or SLEUTH_DATABASE_URL's PostgreSQL.

    \b
    Examples:
      sleuth db check
      SLEUTH_DATABASE_URL=postgresql://sleuth@db:5432/sleuth sleuth db migrate
    """


@db.command("check")
@table_option("json", dest="as_json")
def check_cmd(as_json: bool) -> None:
    """Show each schema's version against this Sleuth's; exit 1 unless all are current.

    \b
    Examples:
      sleuth db check --json
    """
    where, url = _where()
    rows = _rows(url)
    _show(where, rows, as_json)
    if any(r.status == "newer" for r in rows):
        _fail("the database was migrated by a newer Sleuth: upgrade Sleuth on this machine")
    if any(r.status == "behind" for r in rows):
        _fail("the schema is behind this Sleuth: run `sleuth db migrate`")


def _fail(why: str) -> None:
    echo(f"sleuth: {why}", err=True)
    raise SystemExit(1)


@db.command("migrate")
@table_option("json", dest="as_json")
def migrate_cmd(as_json: bool) -> None:
    """Bring every schema up to this Sleuth's (safe to run from many machines at once).

    \b
    Examples:
      sleuth db migrate
    """
    where, url = _where()
    if url is None:
        from ..store.service_sqlite import SqliteServiceStore
        from ..store.sessions import SessionStore

        # Opening migrates: service.db, and sessions.db in the sessions folder.
        SqliteServiceStore(sleuth_home(), SessionStore(_sessions_db()))
    else:
        from ..store import postgres
        from ..store.schemas import KNOWN

        with postgres.connection(url) as conn:
            for component, steps in KNOWN.items():
                postgres.migrate(conn, component, steps, url)
    _show(where, _rows(url), as_json)


COMMANDS = [db]
