"""Login sessions of the web UI, kept server-side in `$SLEUTH_HOME/logins.db`.

`POST /login` with the right password opens one: the browser gets a random token (its cookie),
the file keeps only the token's SHA-256, when it expires (`LIFETIME_S`) and which password it
was opened with (the verifier's fingerprint), so a changed password, `POST /logout` or the
clock ends it whatever the cookie says. One file for the workers of a server (they share the
home); a damaged file is moved aside and a new one started, which only logs everyone out.

Replicas with separate homes do not share it: behind a load balancer, make it sticky for the
UI or keep the UI on one replica.
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
from pathlib import Path

from ..disk.sqlite import enable_wal, recovering
from .config import Clock

LIFETIME_S = 12 * 3600
WHAT = "login sessions"
SCHEMA = """CREATE TABLE IF NOT EXISTS logins (
    token_sha TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, expires REAL NOT NULL)"""


def _sha(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Logins:
    def __init__(self, home: Path, clock: Clock) -> None:
        self.path = home / "logins.db"
        self.clock = clock

    def _run(self, sql: str, args: tuple[object, ...]) -> list[tuple[object, ...]]:
        def action() -> list[tuple[object, ...]]:
            conn = sqlite3.connect(self.path, timeout=30)
            try:
                enable_wal(conn)
                with conn:
                    conn.execute(SCHEMA)
                    rows = conn.execute(sql, args).fetchall()
                return rows
            finally:
                conn.close()

        return recovering(self.path, WHAT, action)

    def open(self, fingerprint: str) -> str:
        """A new session's token (the cookie's value); expired sessions are dropped."""
        token = secrets.token_urlsafe(32)
        now = self.clock()
        self._run("DELETE FROM logins WHERE expires <= ?", (now,))
        self._run(
            "INSERT INTO logins VALUES (?, ?, ?)", (_sha(token), fingerprint, now + LIFETIME_S)
        )
        return token

    def valid(self, token: str, fingerprint: str) -> bool:
        if not token or len(token) > 100:
            return False
        rows = self._run(
            "SELECT 1 FROM logins WHERE token_sha = ? AND fingerprint = ? AND expires > ?",
            (_sha(token), fingerprint, self.clock()),
        )
        return bool(rows)

    def close(self, token: str) -> None:
        self._run("DELETE FROM logins WHERE token_sha = ?", (_sha(token),))
